import type { ChannelCost } from '../../vocabulary/price.ts';
import type { Kysely, Selectable } from 'kysely';
import type { Database, ChannelsTable } from '../schema.ts';
import { parseJson } from '../json.ts';

/** One model's limits on an upstream account: requests and tokens per minute, calls at once (any subset). */
export interface ModelLimits {
  rpm?: number;
  tpm?: number;
  concurrency?: number;
}

/** A channel's model_limits: per public model, or "*" for every model it serves. */
export type ChannelModelLimits = Readonly<Record<string, Readonly<ModelLimits>>>;

export interface ChannelRecord {
  id: string;
  name: string;
  /** One of the upstreams' kinds (adapters/upstreams.ts): the store keeps it as written. */
  kind: string;
  baseUrl: string;
  keyEnc: string;
  models: string[] | null;
  status: 'enabled' | 'disabled';
  priority: number;
  weight: number;
  /** The upstream account (null: the key is its own). */
  account: string | null;
  /** Operator-set parallel tasks per model version on the account (null: learnt from the upstream). */
  taskSlots: number | null;
  /** The account's limits stated on this channel (null: none). */
  modelLimits: ChannelModelLimits | null;
  /** What the upstream charges us on this channel (migration 040); null: not stated. */
  cost: ChannelCost | null;
  createdAt: number;
  updatedAt: number;
}

function toRecord(r: Selectable<ChannelsTable>): ChannelRecord {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    baseUrl: r.base_url,
    keyEnc: r.key_enc,
    models: parseJson<string[]>(r.models),
    status: r.status === 'enabled' ? 'enabled' : 'disabled',
    priority: Number(r.priority),
    weight: Number(r.weight),
    account: r.account ?? null,
    taskSlots: r.task_slots === null || r.task_slots === undefined ? null : Number(r.task_slots),
    modelLimits: r.model_limits ? parseJson<ChannelModelLimits>(r.model_limits) : null,
    cost: r.cost ? parseJson<ChannelCost>(r.cost) : null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export interface NewChannel {
  id: string;
  name: string;
  kind: string;
  baseUrl: string;
  keyEnc: string;
  models: string[] | null;
  priority?: number;
  weight?: number;
  account?: string | null;
  taskSlots?: number | null;
  modelLimits?: ChannelModelLimits | null;
  cost?: ChannelCost | null;
}

/** Stored fields a change may set (absent = unchanged). */
export interface ChannelPatch {
  name?: string;
  status?: 'enabled' | 'disabled';
  priority?: number;
  weight?: number;
  baseUrl?: string;
  keyEnc?: string;
  models?: string[] | null;
  account?: string | null;
  taskSlots?: number | null;
  modelLimits?: ChannelModelLimits | null;
  cost?: ChannelCost | null;
}

const limitsText = (l: ChannelModelLimits | null | undefined): string | null => (l ? JSON.stringify(l) : null);

export class ChannelsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async create(c: NewChannel, now = Date.now()): Promise<ChannelRecord> {
    const row = {
      id: c.id,
      name: c.name,
      kind: c.kind,
      base_url: c.baseUrl,
      key_enc: c.keyEnc,
      models: c.models === null ? null : JSON.stringify(c.models),
      status: 'enabled',
      priority: c.priority ?? 0,
      weight: c.weight ?? 1,
      account: c.account ?? null,
      task_slots: c.taskSlots ?? null,
      model_limits: limitsText(c.modelLimits),
      cost: c.cost ? JSON.stringify(c.cost) : null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('channels').values(row).execute();
    return toRecord(row);
  }

  async list(): Promise<ChannelRecord[]> {
    const rows = await this.db.selectFrom('channels').selectAll().orderBy('created_at', 'asc').execute();
    return rows.map(toRecord);
  }

  /** Up to `limit` channels in creation order (id breaks ties), after the position `after` when given. */
  async page(limit: number, after?: { createdAt: number; id: string }): Promise<ChannelRecord[]> {
    let q = this.db.selectFrom('channels').selectAll();
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '>', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
        ]),
      );
    const rows = await q.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
    return rows.map(toRecord);
  }

  async get(id: string): Promise<ChannelRecord | null> {
    const r = await this.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toRecord(r) : null;
  }

  async setStatus(id: string, status: 'enabled' | 'disabled', now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('channels')
      .set({ status, updated_at: now })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async findByName(name: string): Promise<ChannelRecord | null> {
    const r = await this.db.selectFrom('channels').selectAll().where('name', '=', name).executeTakeFirst();
    return r ? toRecord(r) : null;
  }

  async update(id: string, patch: ChannelPatch, now = Date.now()): Promise<void> {
    await this.db
      .updateTable('channels')
      .set({
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
        ...(patch.weight !== undefined ? { weight: patch.weight } : {}),
        ...(patch.baseUrl !== undefined ? { base_url: patch.baseUrl } : {}),
        ...(patch.keyEnc !== undefined ? { key_enc: patch.keyEnc } : {}),
        ...(patch.models !== undefined ? { models: patch.models === null ? null : JSON.stringify(patch.models) } : {}),
        ...(patch.account !== undefined ? { account: patch.account } : {}),
        ...(patch.taskSlots !== undefined ? { task_slots: patch.taskSlots } : {}),
        ...(patch.modelLimits !== undefined ? { model_limits: limitsText(patch.modelLimits) } : {}),
        ...(patch.cost !== undefined ? { cost: patch.cost ? JSON.stringify(patch.cost) : null } : {}),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }
}
