// The rows a reconciliation reads for a period: ledger charges, the request log (usage as the upstream reported it),
// tasks that finished or were charged, and holds still open. Plain reads; the comparison is core/reconcile.ts.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import type { ChannelCost } from '../../vocabulary/price.ts';
import { parseJson } from '../json.ts';

export interface ReconcileRows {
  ledger: Array<{
    key: string;
    tokenId: string;
    model: string;
    kind: string;
    quantities: string;
    unitPrices: string;
    amount: number;
    listAmount?: number;
    requestId: string | null;
    taskId: string | null;
    createdAt: number;
    /** What it cost upstream, where its channel stated a cost (migration 040). */
    upstreamCost?: number | null;
  }>;
  requests: Array<{ requestId: string; model: string | null; usage: string | null; amount: number; createdAt: number }>;
  /**
   * Of the request ids the period's charges of calls name and `requests` does not hold, those the request log has
   * (with no usage, or outside the period): the others' rows are missing.
   */
  loggedRequests: ReadonlySet<string>;
  tasks: Array<{
    id: string;
    tokenId: string;
    kind: string;
    model: string;
    state: string;
    usage: string | null;
    error: string | null;
    channelId: string;
    finishedAt: number | null;
    createdAt: number;
  }>;
  openHolds: Array<{ key: string; tokenId: string; amount: number; createdAt: number; taskState: string | null }>;
  /** The cost each channel states (channels.cost), by channel id: what a task's deduction is checked against. */
  channelCosts?: ReadonlyMap<string, ChannelCost>;
}

export class ReconcileRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async read(from: number, to: number): Promise<ReconcileRows> {
    // Charges only: a credit line (a top-up) has no upstream usage to be checked against.
    const ledger = await this.db
      .selectFrom('ledger')
      .selectAll()
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .where('kind', '!=', 'credit')
      .orderBy('id')
      .execute();
    const requests = await this.db
      .selectFrom('request_log')
      .select(['request_id', 'model', 'usage', 'amount', 'created_at'])
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .where((eb) => eb.or([eb('amount', '>', 0), eb('usage', 'is not', null)]))
      .execute();
    const read = new Set(requests.map((r) => r.request_id));
    const unmatched = [
      ...new Set(
        ledger
          .filter((l) => l.task_id === null && l.request_id !== null && !read.has(l.request_id))
          .map((l) => l.request_id!),
      ),
    ];
    const loggedRequests = new Set<string>();
    for (let i = 0; i < unmatched.length; i += 500) {
      const found = await this.db
        .selectFrom('request_log')
        .select('request_id')
        .where('request_id', 'in', unmatched.slice(i, i + 500))
        .execute();
      for (const r of found) loggedRequests.add(r.request_id);
    }
    // Tasks that finished in the period, and any task a charge of the period names.
    const charged = [...new Set(ledger.map((l) => l.task_id).filter((t): t is string => t !== null))];
    const tasks = await this.db
      .selectFrom('tasks')
      .select(['id', 'token_id', 'kind', 'model', 'state', 'usage', 'error', 'channel_id', 'finished_at', 'created_at'])
      .where((eb) => {
        const finished = eb.and([eb('finished_at', '>=', from), eb('finished_at', '<', to)]);
        return charged.length ? eb.or([finished, eb('id', 'in', charged)]) : finished;
      })
      .execute();
    const holds = await this.db
      .selectFrom('holds')
      .leftJoin('tasks', 'tasks.id', 'holds.hold_key')
      .select([
        'holds.hold_key as key',
        'holds.token_id',
        'holds.amount',
        'holds.created_at',
        'tasks.state as task_state',
      ])
      .where('holds.state', '=', 'held')
      .where('holds.created_at', '<', to)
      .execute();
    const costed = await this.db.selectFrom('channels').select(['id', 'cost']).where('cost', 'is not', null).execute();
    const channelCosts = new Map<string, ChannelCost>();
    for (const c of costed) {
      const v = parseJson<ChannelCost>(c.cost);
      if (v) channelCosts.set(c.id, v);
    }
    return {
      channelCosts,
      ledger: ledger.map((l) => ({
        key: l.idempotency_key,
        tokenId: l.token_id,
        model: l.model,
        kind: l.kind,
        quantities: l.quantities,
        unitPrices: l.unit_prices,
        amount: Number(l.amount),
        listAmount: l.list_amount === null ? Number(l.amount) : Number(l.list_amount),
        requestId: l.request_id,
        taskId: l.task_id,
        createdAt: Number(l.created_at),
        upstreamCost: l.upstream_cost === null ? null : Number(l.upstream_cost),
      })),
      requests: requests.map((r) => ({
        requestId: r.request_id,
        model: r.model,
        usage: r.usage,
        amount: Number(r.amount),
        createdAt: Number(r.created_at),
      })),
      loggedRequests,
      tasks: tasks.map((t) => ({
        id: t.id,
        tokenId: t.token_id,
        kind: t.kind,
        model: t.model,
        state: t.state,
        usage: t.usage,
        error: t.error,
        channelId: t.channel_id,
        finishedAt: t.finished_at === null ? null : Number(t.finished_at),
        createdAt: Number(t.created_at),
      })),
      openHolds: holds.map((h) => ({
        key: h.key,
        tokenId: h.token_id,
        amount: Number(h.amount),
        createdAt: Number(h.created_at),
        taskState: h.task_state ?? null,
      })),
    };
  }
}
