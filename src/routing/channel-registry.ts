import type { SecretBox } from '../auth/secret-box.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ModelEntry } from '../catalogue/types.ts';
import { registerSecret } from '../errors/redact.ts';
import type { ChannelKind, ChannelRecord, ChannelsRepo } from '../store/repos/channels.ts';

/** Upstream credentials after decryption. Never leaves the process. */
export interface ChannelKeys {
  apiKey?: string;
  accessKey?: string;
  secretKey?: string;
}

export interface Channel {
  id: string;
  name: string;
  kind: ChannelKind;
  baseUrl: string;
  keys: ChannelKeys;
  models: string[] | null;
  priority: number;
  weight: number;
}

/** Enabled channels in memory (reloaded on admin changes), so routing never reads the DB per request. */
export class ChannelRegistry {
  private channels: Channel[] = [];
  private byId = new Map<string, Channel>();

  constructor(
    private readonly repo: ChannelsRepo,
    private readonly box: SecretBox,
  ) {}

  async reload(): Promise<void> {
    const rows = await this.repo.list();
    const enabled = rows.filter((r) => r.status === 'enabled').map((r) => this.decrypt(r));
    this.channels = enabled;
    this.byId = new Map(enabled.map((c) => [c.id, c]));
  }

  private decrypt(r: ChannelRecord): Channel {
    let keys: ChannelKeys = {};
    try {
      keys = JSON.parse(this.box.open(r.keyEnc)) as ChannelKeys;
    } catch {
      keys = {};
    }
    registerSecret(keys.apiKey);
    registerSecret(keys.secretKey);
    registerSecret(keys.accessKey);
    return { id: r.id, name: r.name, kind: r.kind, baseUrl: r.baseUrl, keys, models: r.models, priority: r.priority, weight: r.weight };
  }

  all(): Channel[] {
    return this.channels;
  }

  get(id: string): Channel | undefined {
    return this.byId.get(id);
  }

  /** Enabled channels able to serve a model, best first (priority desc). */
  forModel(entry: ModelEntry): Channel[] {
    return this.channels
      .filter((c) => c.kind === entry.upstream && (c.models === null || c.models.includes(entry.id)))
      .sort((a, b) => b.priority - a.priority);
  }

  serves(entry: ModelEntry): boolean {
    return this.channels.some((c) => c.kind === entry.upstream && (c.models === null || c.models.includes(entry.id)));
  }
}

/** Is this public model usable by the token? (allow-list AND an enabled channel serves it) */
export function isVisible(models: string[] | null, entry: ModelEntry, publicName: string, registry: ChannelRegistry): boolean {
  if (entry.hidden) return false;
  if (models !== null && !models.includes(publicName) && !models.includes(entry.id)) return false;
  return registry.serves(entry);
}

export function visibleModels(models: string[] | null, catalogue: Catalogue, registry: ChannelRegistry): ModelEntry[] {
  return catalogue.entries().filter((e) => isVisible(models, e, e.id, registry));
}
