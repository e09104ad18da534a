// What a request or a task left in the store: ledger rows, request-log rows, holds and token counters. The
// ledger and the request log are group-committed, so each read first flushes the writers.
import type { Kysely } from 'kysely';
import type { Harness } from './harness.ts';
import type { RequestLogRow } from '../../src/store/repos/request-log.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import type { Database } from '../../src/store/schema.ts';
import type { LedgerTuple } from '../../src/store/sqlite-row-writes.ts';

/** A token of no quota, account or model list, stored directly (tests of the writers below the core); its id. */
export async function plainToken(db: Kysely<Database>, tag: string): Promise<string> {
  const id = `tok_${tag}_${Date.now().toString(36)}`;
  await new TokensRepo(db).create({
    id,
    name: id,
    secretHash: `h_${id}`,
    prefix: 'tw-test',
    models: null,
    quota: null,
    expiresAt: null,
  });
  return id;
}

/** A request-log row as the writer takes it: an answered chat, no upstream ids or usage, with what `row` sets. */
export const answeredLogRow = (row: Partial<RequestLogRow> & Pick<RequestLogRow, 'requestId'>): RequestLogRow => ({
  tokenId: null,
  model: 'qwx3.7-plus',
  endpoint: '/v1/chat/completions',
  method: 'POST',
  status: 200,
  latencyMs: 3,
  usage: null,
  amount: 0,
  upstreamRequestId: null,
  errorCode: null,
  createdAt: Date.now(),
  ...row,
});

export async function flushWriters(h: Harness): Promise<void> {
  await h.gw.deps.meter.flush();
  await h.gw.deps.requestLog.flush();
}

/** Ledger rows of one request id (sync calls), as they are once the writers are flushed. */
export async function ledgerOfRequest(h: Harness, rid: string) {
  await flushWriters(h);
  return h.store.db.selectFrom('ledger').selectAll().where('request_id', '=', rid).execute();
}

export interface LedgerRow {
  idempotency_key: string;
  token_id: string;
  model: string;
  amount: number | string;
  quantities: string;
  request_id: string | null;
  upstream_request_id: string | null;
}

/** Ledger rows of one request id, waiting (up to ~2 s) until there are at least `wantAtLeast` of them. */
export async function ledgerRows(h: Harness, requestId: string, wantAtLeast = 1): Promise<LedgerRow[]> {
  let rows: LedgerRow[] = [];
  for (let i = 0; i < 100; i++) {
    await h.gw.deps.meter.flush();
    rows = (await h.store.db
      .selectFrom('ledger')
      .selectAll()
      .where('request_id', '=', requestId)
      .execute()) as unknown as LedgerRow[];
    if (rows.length >= wantAtLeast) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return rows;
}

/** Ledger rows of one token. */
export async function ledgerOfToken(h: Harness, tokenId: string) {
  await h.gw.deps.meter.flush();
  return h.store.db.selectFrom('ledger').selectAll().where('token_id', '=', tokenId).execute();
}

/** Ledger rows of one task. */
export async function ledgerOfTask(h: Harness, taskId: string) {
  await flushWriters(h);
  return h.store.db.selectFrom('ledger').selectAll().where('task_id', '=', taskId).execute();
}

/** The hold of one task. */
export async function holdOfTask(h: Harness, taskId: string) {
  return h.store.db.selectFrom('holds').selectAll().where('hold_key', '=', taskId).executeTakeFirst();
}

/** A token's `spent` and `held` counters. */
export async function tokenRow(h: Harness, tokenId: string) {
  return h.store.db.selectFrom('tokens').select(['spent', 'held']).where('id', '=', tokenId).executeTakeFirstOrThrow();
}

/** The request-log rows of one request id as they are once the writers are flushed (none, or one). */
export async function requestLogRows(h: Harness, rid: string) {
  await flushWriters(h);
  return h.store.db.selectFrom('request_log').selectAll().where('request_id', '=', rid).execute();
}

/** The request-log row of one request, waiting for the writer (it is written after the response). */
export async function requestLogRow(h: Harness, rid: string) {
  for (let i = 0; i < 100; i++) {
    await flushWriters(h);
    const row = await h.store.db.selectFrom('request_log').selectAll().where('request_id', '=', rid).executeTakeFirst();
    if (row) return row;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no request_log row for ${rid}`);
}

/** A request-log row of a chat call as the store keeps it (statistics tests write these directly, at chosen times). */
export const chatLogRow = (
  requestId: string,
  token: string,
  model: string,
  status: number,
  amount: number,
  createdAt: number,
) => ({
  request_id: requestId,
  token_id: token,
  model,
  endpoint: '/v1/chat/completions',
  method: 'POST',
  status,
  latency_ms: 5,
  usage: null,
  amount,
  upstream_request_id: null,
  error_code: status >= 400 ? 'upstream_error' : null,
  created_at: createdAt,
});

/** A ledger row as the SQLite batch writer takes it: a chat charge of `amount` to `tokenId`, keyed by `key`. */
export const ledgerTuple = (key: string, tokenId: string, amount: number): LedgerTuple => [
  key,
  tokenId,
  'qwx3.7-plus',
  'tokens',
  { input_tokens: 3 },
  { input: 1 },
  amount,
  key,
  null,
  null,
  1,
];

/**
 * Request-log rows written straight into the store, each with an amount also written as its charge (a ledger line
 * keyed by its request id, at its time): the overview counts requests from the log and money from the ledger.
 */
export async function insertChatRows(db: Kysely<Database>, rows: ReadonlyArray<ReturnType<typeof chatLogRow>>) {
  await db
    .insertInto('request_log')
    .values([...rows])
    .execute();
  const charges = rows
    .filter((r) => r.amount > 0)
    .map((r) => ({
      idempotency_key: r.request_id,
      token_id: r.token_id,
      model: r.model,
      kind: 'tokens',
      quantities: '{}',
      unit_prices: '{}',
      amount: r.amount,
      request_id: r.request_id,
      task_id: null,
      upstream_request_id: null,
      created_at: r.created_at,
    }));
  if (charges.length > 0) await db.insertInto('ledger').values(charges).execute();
}
