import { tenantOf, type Principal } from '../auth/principal.ts';
import type { SecretBox } from '../auth/secret-box.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ModelEntry } from '../catalogue/types.ts';
import { registerSecret } from '../errors/redact.ts';
import type { ChannelCost } from '../vocabulary/price.ts';
import type { ChannelKind } from '../adapters/upstream-kinds.ts';
import type { ChannelKeys } from '../adapters/upstream-declaration.ts';

export type { ChannelKeys } from '../adapters/upstream-declaration.ts';
import type { ChannelModelLimits, ChannelRecord, ChannelsRepo } from '../store/repos/channels.ts';
import { EntitlementMarks } from './entitlement-marks.ts';
import { upstreamAccountOf } from './upstream-account.ts';

export { NOT_ENTITLED_TTL_MS, NOT_ENTITLED_WITNESSES } from './entitlement-marks.ts';

/**
 * Upstream credentials after decryption: every upstream's key fields (Upstream.keyFields). Never leaves the process.
 */
export interface Channel {
  id: string;
  name: string;
  kind: ChannelKind;
  baseUrl: string;
  keys: ChannelKeys;
  models: string[] | null;
  priority: number;
  weight: number;
  /**
   * The upstream account the key belongs to, as the operator named it (null: the key is its own; see
   * upstream-account.ts). Stored and shown as the channel's `account`.
   */
  upstreamAccount: string | null;
  /** Operator-set parallel tasks per model version on the account (null: learnt from the upstream's refusals). */
  taskSlots: number | null;
  /** The account's limits per model stated on this channel (null: none; see capacity/). */
  modelLimits: ChannelModelLimits | null;
  /** What the upstream charges us on it (null: not stated): each charge records its cost (core/upstream-cost.ts). */
  cost?: ChannelCost | null;
}

/**
 * Enabled channels in memory (reloaded on admin changes), so routing never reads the DB per request.
 * Also what each channel's upstream account is entitled to, as far as the upstream has told us (entitlement-marks.ts):
 * an upstream model the account refused as not activated/purchased leaves the routing of the channels of that
 * account — and the model's visibility, when no other account serves it. Changing a channel (key, URL, models)
 * forgets what was learnt about its account.
 */
export class ChannelRegistry {
  private channels: Channel[] = [];
  /** Disabled channels, by what they would serve (kind and model list): what `unavailable` tells an outage by. */
  private disabled: Array<Pick<Channel, 'kind' | 'models'>> = [];
  private byId = new Map<string, Channel>();
  /** Every channel, enabled or not, by id: what the tasks already created on a channel are followed with (forTask). */
  private anyById = new Map<string, Channel>();
  private signatures = new Map<string, string>();
  private readonly notEntitled: EntitlementMarks;
  /** Each channel's upstream account and host (entitlementAccount), by channel id. */
  private accounts = new Map<string, string>();
  /**
   * forModel's answer per model while no channel is marked not entitled (the steady state): the filter and sort
   * ran on every request twice (visibility, then routing). Emptied whenever the channels are reloaded.
   */
  private routes = new Map<ModelEntry, readonly Channel[]>();
  private lastRead = '';
  /** Grows with every reload that changed the channels (what capacity/ re-reads their limits by). */
  version = 0;

  constructor(
    private readonly repo: ChannelsRepo,
    private readonly box: SecretBox,
    now: () => number = Date.now,
  ) {
    this.notEntitled = new EntitlementMarks(now);
  }

  /**
   * Re-read the channels. Rows identical to the last read change nothing: the channel objects, and the routes cached
   * for them, stay as they are (the periodic re-read runs every few seconds on every instance).
   */
  /** Reloads run one after another: a read begun before a change can never land after the read that saw it. */
  private reloads: Promise<void> = Promise.resolve();

  reload(): Promise<void> {
    const next = this.reloads.then(() => this.reloadNow());
    this.reloads = next.catch(() => undefined);
    return next;
  }

  private async reloadNow(): Promise<void> {
    const rows = await this.repo.list();
    const read = JSON.stringify(rows);
    if (read === this.lastRead) return;
    const opened = rows.map((r) => ({ row: r, channel: openChannel(r, this.box) }));
    const enabled = opened.filter((o) => o.row.status === 'enabled').map((o) => o.channel);
    this.disabled = rows
      .filter((r) => r.status !== 'enabled')
      .map((r) => ({ kind: r.kind as ChannelKind, models: r.models }));
    const signatures = new Map(
      rows.map((r) => [r.id, `${r.status}|${r.baseUrl}|${r.keyEnc}|${JSON.stringify(r.models)}|${r.account}`]),
    );
    const accounts = new Map(opened.map((o) => [o.channel.id, entitlementAccount(o.channel)]));
    const changed = new Set<string>();
    for (const id of new Set([...signatures.keys(), ...this.signatures.keys()])) {
      if (signatures.get(id) === this.signatures.get(id)) continue;
      for (const a of [accounts.get(id), this.accounts.get(id)]) if (a !== undefined) changed.add(a);
    }
    if (changed.size > 0) this.notEntitled.forget(changed);
    this.signatures = signatures;
    this.accounts = accounts;
    this.channels = enabled;
    this.byId = new Map(enabled.map((c) => [c.id, c]));
    this.anyById = new Map(opened.map((o) => [o.channel.id, o.channel]));
    this.routes = new Map();
    this.lastRead = read;
    this.version++;
  }

  /**
   * The channel's account refused `upstreamModel` (the name sent upstream) as not entitled, on a call of `tenant`:
   * the account's channels leave that model's routing for a while, for that tenant at once and for every tenant
   * once another was refused too (entitlement-marks.ts).
   */
  markNotEntitled(channel: Channel, upstreamModel: string, tenant: string): void {
    this.notEntitled.refused(this.upstreamAccountOf(channel), upstreamModel, tenant);
  }

  private upstreamAccountOf(c: Channel): string {
    return this.accounts.get(c.id) ?? entitlementAccount(c);
  }

  private entitled(c: Channel, upstreamModel: string, tenant: string | null): boolean {
    return this.notEntitled.size === 0 || this.notEntitled.allows(this.upstreamAccountOf(c), upstreamModel, tenant);
  }

  all(): Channel[] {
    return this.channels;
  }

  /** An enabled channel: what new upstream work may use. */
  get(id: string): Channel | undefined {
    return this.byId.get(id);
  }

  /**
   * The channel a task was created on, enabled or not. Disabling a channel stops new calls through it; the tasks
   * already running on its account are still followed to their end with its keys (status queries, the lost-submit
   * lookup, an operator's cancel) — the upstream finishes and bills them either way, and only this account knows them.
   */
  forTask(id: string): Channel | undefined {
    return this.anyById.get(id);
  }

  /**
   * Enabled channels able to serve a model, best first (priority desc). Shared: callers must not change it.
   * `upstreamModel`: the name the call sends (a dated snapshot's own; default the entry's); `who`: whose call it
   * is (null: anyone's), for the entitlement marks that so far apply to one tenant only.
   */
  forModel(
    entry: ModelEntry,
    upstreamModel: string = entry.upstreamModel,
    who: Principal | null = null,
  ): readonly Channel[] {
    if (this.notEntitled.size > 0 && this.notEntitled.prune() > 0)
      return this.computeFor(entry, upstreamModel, who ? tenantOf(who) : null);
    let r = this.routes.get(entry);
    if (r === undefined) {
      r = this.computeFor(entry, upstreamModel, null);
      // Bounded by the catalogue (entries are its objects); an override reload makes new ones.
      if (this.routes.size >= 1000) this.routes.clear();
      this.routes.set(entry, r);
    }
    return r;
  }

  /** Does an enabled channel serve the model (as `upstreamModel`, to `who`'s calls, given the entitlement marks)? */
  serves(entry: ModelEntry, who: Principal | null = null, upstreamModel: string = entry.upstreamModel): boolean {
    return this.forModel(entry, upstreamModel, who).length > 0;
  }

  /**
   * The model is offered by channel configuration but every channel for it is disabled: a temporary outage the
   * operator made (answered 503 no_channel), unlike a model no channel is configured for, or one whose enabled
   * channels' accounts are not entitled to it (unknown to this token: 404 model_not_found).
   */
  unavailable(entry: ModelEntry): boolean {
    const configured = (c: Pick<Channel, 'kind' | 'models'>) =>
      c.kind === entry.upstream && (c.models === null || c.models.includes(entry.id));
    return !this.channels.some(configured) && this.disabled.some(configured);
  }

  // Routes are kept only while no mark stands (expired marks are pruned first, or a mark for a model nobody asks
  // for again would keep every model off the kept routes until the channel changes).
  private computeFor(entry: ModelEntry, upstreamModel: string, tenant: string | null): readonly Channel[] {
    return Object.freeze(
      this.channels
        .filter((c) => this.servesWith(c, entry, upstreamModel, tenant))
        .sort((a, b) => b.priority - a.priority),
    );
  }

  private servesWith(c: Channel, entry: ModelEntry, upstreamModel: string, tenant: string | null): boolean {
    return (
      c.kind === entry.upstream &&
      (c.models === null || c.models.includes(entry.id)) &&
      this.entitled(c, upstreamModel, tenant)
    );
  }
}

/**
 * What an entitlement belongs to: the upstream account (upstream-account.ts) at that host (a region activates models
 * apart).
 */
function entitlementAccount(c: Channel): string {
  return `${upstreamAccountOf(c)}@${c.baseUrl}`;
}

/** A channel record with its keys opened (every key registered for redaction). */
export function openChannel(r: ChannelRecord, box: SecretBox): Channel {
  let keys: ChannelKeys = {};
  try {
    keys = JSON.parse(box.open(r.keyEnc)) as ChannelKeys;
  } catch {
    keys = {};
  }
  // Every key whatever its upstream: the key fields are each upstream's own (Upstream.keyFields).
  for (const v of Object.values(keys)) if (typeof v === 'string') registerSecret(v);
  return {
    id: r.id,
    name: r.name,
    kind: r.kind as ChannelKind,
    baseUrl: r.baseUrl,
    keys,
    models: r.models,
    priority: r.priority,
    weight: r.weight,
    upstreamAccount: r.account,
    taskSlots: r.taskSlots,
    modelLimits: r.modelLimits,
    cost: r.cost,
  };
}

/** Is this public model usable by the token? (allow-list AND an enabled channel whose account is entitled serves it) */
export function isVisible(
  models: string[] | null,
  entry: ModelEntry,
  publicName: string,
  registry: ChannelRegistry,
  who: Principal | null = null,
  upstreamModel: string = entry.upstreamModel,
): boolean {
  return isAllowed(models, entry, publicName) && registry.serves(entry, who, upstreamModel);
}

/** The catalogue lists the model and the token's allow-list names it (or has none): whatever the channels say. */
export function isAllowed(models: string[] | null, entry: ModelEntry, publicName: string): boolean {
  return !entry.hidden && (models === null || models.includes(publicName) || models.includes(entry.id));
}

export function visibleModels(
  models: string[] | null,
  catalogue: Catalogue,
  registry: ChannelRegistry,
  who: Principal | null = null,
): ModelEntry[] {
  return catalogue.entries().filter((e) => isVisible(models, e, e.id, registry, who));
}
