// The SQLite group-commit writer: ledger and request-log batches handed over together commit in one
// transaction, and a batch that cannot be written never holds back the other kind.
import { withLedger } from '../support/batch-writer.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LedgerTuple, LogTuple } from '../../src/store/sqlite-batch-writer.ts';
import { MAX_BALANCE } from '../../src/metering/balance-bound.ts';
import { ledgerTuple } from '../support/store-rows.ts';
import { testDialect, useStore } from '../support/store.ts';

const ledgerRow = ledgerTuple;
const logRow = (id: string): LogTuple => [
  id,
  'tok_w',
  'qwx3.7-plus',
  '/v1/chat/completions',
  'POST',
  200,
  3,
  { input_tokens: 3 },
  7,
  null,
  null,
  1,
  'ch_1',
  [{ channel_id: 'ch_1', outcome: 'ok', error_code: null, latency_ms: 2 }],
  2,
];

describe.skipIf(testDialect() !== 'sqlite')('SqliteBatchWriter', () => {
  const fresh = useStore();
  beforeAll(async () => {
    await fresh.store.db
      .insertInto('tokens')
      .values({ id: 'tok_w', name: 'w', secret_hash: 'h-w', prefix: 'sk-w', spent: 0, held: 0, created_at: 1 })
      .execute();
  });

  const count = async (table: 'ledger' | 'request_log') =>
    Number(
      (
        await fresh.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const spent = async () =>
    Number(
      (await fresh.store.db.selectFrom('tokens').select('spent').where('id', '=', 'tok_w').executeTakeFirstOrThrow())
        .spent,
    );

  it('writes both kinds handed over together, and a repeated key neither inserts nor moves spent', async () => {
    const w = withLedger(fresh.store.batchWriter!);
    await Promise.all([
      w.ledger([ledgerRow('k1', 'tok_w', 5), ledgerRow('k2', 'tok_w', 6)]),
      w.requestLog([logRow('r1'), logRow('r2')]),
    ]);
    expect(await count('ledger')).toBe(2);
    expect(await count('request_log')).toBe(2);
    expect(await spent()).toBe(11);
    await Promise.all([w.ledger([ledgerRow('k1', 'tok_w', 5)]), w.requestLog([logRow('r1')])]);
    expect(await count('ledger')).toBe(2);
    expect(await spent()).toBe(11);
  });

  it('a request-log batch that fails does not stop the charges handed over with it (and vice versa)', async () => {
    const w = withLedger(fresh.store.batchWriter!);
    const bad = logRow('r-bad');
    bad[3] = null as unknown as string; // endpoint is NOT NULL
    const [charges, log] = await Promise.allSettled([
      w.ledger([ledgerRow('k3', 'tok_w', 4)]),
      w.requestLog([logRow('r3'), bad]),
    ]);
    expect(charges.status).toBe('fulfilled');
    expect(log.status).toBe('rejected');
    expect(await spent()).toBe(15);
    expect(await count('request_log')).toBe(2); // r3 went with the failed batch (its GroupCommit retries it)

    const badCharge = ledgerRow('k-bad', 'tok_w', 1);
    badCharge[2] = null as unknown as string; // model is NOT NULL
    const [c2, l2] = await Promise.allSettled([
      w.ledger([ledgerRow('k4', 'tok_w', 1), badCharge]),
      w.requestLog([logRow('r4')]),
    ]);
    expect(c2.status).toBe('rejected');
    expect(l2.status).toBe('fulfilled');
    expect(await spent()).toBe(15); // the failed batch moved nothing
    expect(await count('request_log')).toBe(3);
  });

  // Rows go in several per statement (sqlite-chunked-insert.ts): a batch of more than 32 alike rows spans chunks of
  // different sizes, and a key already stored in the middle of a chunk must neither count nor take room.
  it('a batch of 45 charges and 45 log rows lands whole, across chunks of 32 and 13', async () => {
    const w = withLedger(fresh.store.batchWriter!);
    const before = await spent();
    const keys = Array.from({ length: 45 }, (_, i) => `c45-${i}`);
    await Promise.all([
      w.ledger(keys.map((k, i) => ledgerRow(k, 'tok_w', i + 1))),
      w.requestLog(keys.map((k) => logRow(`r-${k}`))),
    ]);
    const rows = await fresh.store.db
      .selectFrom('ledger')
      .select(['idempotency_key', 'amount'])
      .where('idempotency_key', 'like', 'c45-%')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.idempotency_key, Number(r.amount)])).toEqual(keys.map((k, i) => [k, i + 1]));
    expect(await spent()).toBe(before + (45 * 46) / 2);
    const logged = await fresh.store.db
      .selectFrom('request_log')
      .select('request_id')
      .where('request_id', 'like', 'r-c45-%')
      .execute();
    expect(logged).toHaveLength(45);
  });

  it('a chunk with keys already stored inserts only the new rows, each new row bounded by the room the rows before it left', async () => {
    const w = withLedger(fresh.store.batchWriter!);
    const db = fresh.store.db;
    await db
      .insertInto('tokens')
      .values({ id: 'tok_room', name: 'r', secret_hash: 'h-room', prefix: 'sk-r', spent: 0, held: 0, created_at: 1 })
      .execute();
    await w.ledger([ledgerRow('room-1', 'tok_room', 6), ledgerRow('room-3', 'tok_room', 6)]);
    // 10 of room left: the repeated keys take none of it, room-2 takes 6 and room-4 what is left (4).
    await db
      .updateTable('tokens')
      .set({ spent: MAX_BALANCE - 10 })
      .where('id', '=', 'tok_room')
      .execute();
    await w.ledger([
      ledgerRow('room-1', 'tok_room', 6),
      ledgerRow('room-2', 'tok_room', 6),
      ledgerRow('room-3', 'tok_room', 6),
      ledgerRow('room-4', 'tok_room', 6),
    ]);
    const rows = await db
      .selectFrom('ledger')
      .select(['idempotency_key', 'amount'])
      .where('token_id', '=', 'tok_room')
      .orderBy('idempotency_key')
      .execute();
    expect(rows.map((r) => [r.idempotency_key, Number(r.amount)])).toEqual([
      ['room-1', 6],
      ['room-2', 6],
      ['room-3', 6],
      ['room-4', 4],
    ]);
    const t = await db.selectFrom('tokens').select('spent').where('id', '=', 'tok_room').executeTakeFirstOrThrow();
    expect(Number(t.spent)).toBe(MAX_BALANCE);
    // The rows taken out and put back are the chunk's own: the ledger holds each key once, in the order written.
    const ids = await db.selectFrom('ledger').select('id').where('token_id', '=', 'tok_room').orderBy('id').execute();
    expect(new Set(ids.map((r) => r.id)).size).toBe(4);
  });

  it('interleaved tokens, models, routes, tasks, accounts and outcomes: every row keeps its own values (bound once per chunk of rows that share them)', async () => {
    const w = withLedger(fresh.store.batchWriter!);
    const db = fresh.store.db;
    for (const id of ['tok_mix_a', 'tok_mix_b'])
      await db
        .insertInto('tokens')
        .values({ id, name: id, secret_hash: `h-${id}`, prefix: 'sk-m', spent: 0, held: 0, created_at: 1 })
        .execute();
    for (const id of ['acct_mix_1', 'acct_mix_2'])
      await db
        .insertInto('accounts')
        .values({ id, name: id, spent: 0, held: 0, created_at: 1, updated_at: 1 })
        .execute();
    const priceA = Object.freeze({ input: 1 });
    const priceB = Object.freeze({ input: 2, output: 3 });
    const charges: LedgerTuple[] = [];
    const logs: LogTuple[] = [];
    for (let i = 0; i < 23; i++) {
      const token = i % 3 === 0 ? 'tok_mix_b' : 'tok_mix_a';
      const model = i % 4 === 0 ? 'qwx-embed' : 'qwx3.7-plus';
      const key = `mix-${i}`;
      const base = [
        key,
        token,
        model,
        i % 5 === 0 ? 'images' : 'tokens',
        { n: i },
        i % 2 === 0 ? priceA : priceB,
        i + 1,
        key,
        i % 8 === 3 ? `task_mix_${i}` : null,
        `up-${i}`,
        100 + i,
      ] as const;
      // Some rows charged to an allowance: an account, a list amount, a price group (or none) of their own.
      const accountId = i % 4 === 1 ? 'acct_mix_1' : 'acct_mix_2';
      const lease = { allowance: `hold_mix_${i % 2}`, accountId, rows: ['account', accountId] };
      charges.push(i % 3 === 1 ? [...base, lease, 0, 1000 + i, i % 6 === 1 ? 'pg_gold' : null] : [...base]);
      const row = logRow(`r-${key}`);
      if (i % 5 === 2) {
        row[10] = i % 2 === 0 ? 'upstream_error' : 'rate_limited';
        row[15] = `upstream said ${i}`;
      }
      row[1] = token;
      row[2] = model;
      row[3] = i % 2 === 0 ? '/v1/embeddings' : '/v1/chat/completions';
      row[4] = i % 7 === 0 ? 'GET' : 'POST';
      row[12] = i % 6 === 0 ? 'ch_2' : 'ch_1';
      row[5] = 200 + (i % 3);
      logs.push(row);
    }
    await Promise.all([w.ledger(charges), w.requestLog(logs)]);
    const stored = await db.selectFrom('ledger').selectAll().where('idempotency_key', 'like', 'mix-%').execute();
    expect(stored).toHaveLength(23);
    for (const c of charges) {
      const r = stored.find((x) => x.idempotency_key === c[0])!;
      expect([
        r.token_id,
        r.model,
        r.kind,
        JSON.parse(r.unit_prices),
        JSON.parse(r.quantities),
        Number(r.amount),
        r.upstream_request_id,
        Number(r.created_at),
        r.task_id,
        r.account_id,
        r.list_amount === null ? null : Number(r.list_amount),
        r.price_group,
      ]).toEqual([
        c[1],
        c[2],
        c[3],
        c[5],
        c[4],
        c[6],
        c[9],
        c[10],
        c[8],
        c[11]?.accountId ?? null,
        c[11] ? c[13] : null,
        c[11] ? c[14] : null,
      ]);
    }
    const spentOf = async (id: string) =>
      Number((await db.selectFrom('tokens').select('spent').where('id', '=', id).executeTakeFirstOrThrow()).spent);
    const sum = (token: string) => charges.filter((c) => c[1] === token).reduce((a, c) => a + c[6], 0);
    expect(await spentOf('tok_mix_a')).toBe(sum('tok_mix_a'));
    expect(await spentOf('tok_mix_b')).toBe(sum('tok_mix_b'));
    const logged = await db.selectFrom('request_log').selectAll().where('request_id', 'like', 'r-mix-%').execute();
    expect(logged).toHaveLength(23);
    for (const l of logs) {
      const r = logged.find((x) => x.request_id === l[0])!;
      expect([
        r.token_id,
        r.model,
        r.endpoint,
        r.method,
        r.channel_id,
        r.status,
        r.error_code,
        r.upstream_error,
      ]).toEqual([l[1], l[2], l[3], l[4], l[12], l[5], l[10], l[15] ?? null]);
    }
  });
  it('rows alike but for one value bound per chunk (task, account, price group; status, error, upstream error) each keep their own', async () => {
    const w = withLedger(fresh.store.batchWriter!);
    const db = fresh.store.db;
    await db
      .insertInto('accounts')
      .values({ id: 'acct_one', name: 'one', spent: 0, held: 0, created_at: 1, updated_at: 1 })
      .execute();
    const prices = Object.freeze({ input: 1 });
    const lease = { allowance: 'hold_one', accountId: 'acct_one', rows: ['account', 'acct_one'] };
    // Eight rows per case, the same token, model, kind and prices; rows 3 and 6 differ in the case's value only.
    const cases: Array<(i: number, key: string) => LedgerTuple> = [
      (i, key) => [
        key,
        'tok_w',
        'qwx3.7-plus',
        'tokens',
        { n: i },
        prices,
        1,
        key,
        i === 3 || i === 6 ? `task_${key}` : null,
        null,
        5,
      ],
      (i, key) => [
        key,
        'tok_w',
        'qwx3.7-plus',
        'tokens',
        { n: i },
        prices,
        1,
        key,
        null,
        null,
        5,
        ...(i === 3 || i === 6 ? ([lease, 0, 2, null] as const) : ([] as const)),
      ],
      (i, key) => [
        key,
        'tok_w',
        'qwx3.7-plus',
        'tokens',
        { n: i },
        prices,
        1,
        key,
        null,
        null,
        5,
        lease,
        0,
        2,
        i === 3 || i === 6 ? 'pg_x' : null,
      ],
    ];
    const charges = cases.flatMap((c, n) => Array.from({ length: 8 }, (_, i) => c(i, `alike-${n}-${i}`)));
    const logs: LogTuple[] = [];
    for (let n = 0; n < 3; n++)
      for (let i = 0; i < 8; i++) {
        const row = logRow(`alike-${n}-${i}`);
        if (i === 3 || i === 6) {
          if (n === 0) row[5] = 502;
          if (n === 1) row[10] = 'upstream_error';
          if (n === 2) row[15] = 'the upstream said no';
        }
        logs.push(row);
      }
    await Promise.all([w.ledger(charges), w.requestLog(logs)]);
    const stored = await db.selectFrom('ledger').selectAll().where('idempotency_key', 'like', 'alike-%').execute();
    expect(stored).toHaveLength(24);
    for (const c of charges) {
      const r = stored.find((x) => x.idempotency_key === c[0])!;
      expect([r.task_id, r.account_id, r.price_group]).toEqual([c[8], c[11]?.accountId ?? null, c[11] ? c[14] : null]);
    }
    const logged = await db.selectFrom('request_log').selectAll().where('request_id', 'like', 'alike-%').execute();
    expect(logged).toHaveLength(24);
    for (const l of logs) {
      const r = logged.find((x) => x.request_id === l[0])!;
      expect([r.status, r.error_code, r.upstream_error]).toEqual([l[5], l[10], l[15] ?? null]);
    }
  });
});
