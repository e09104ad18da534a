// The SQLite group-commit writer: ledger and request-log batches handed over together commit in one
// transaction, and a batch that cannot be written never holds back the other kind.
import { beforeAll, describe, expect, it } from 'vitest';
import type { LogTuple } from '../../src/store/sqlite-batch-writer.ts';
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
  const spent = async () => Number((await fresh.store.db.selectFrom('tokens').select('spent').where('id', '=', 'tok_w').executeTakeFirstOrThrow()).spent);

  it('writes both kinds handed over together, and a repeated key neither inserts nor moves spent', async () => {
    const w = fresh.store.batchWriter!;
    await Promise.all([w.ledger([ledgerRow('k1', 'tok_w', 5), ledgerRow('k2', 'tok_w', 6)]), w.requestLog([logRow('r1'), logRow('r2')])]);
    expect(await count('ledger')).toBe(2);
    expect(await count('request_log')).toBe(2);
    expect(await spent()).toBe(11);
    await Promise.all([w.ledger([ledgerRow('k1', 'tok_w', 5)]), w.requestLog([logRow('r1')])]);
    expect(await count('ledger')).toBe(2);
    expect(await spent()).toBe(11);
  });

  it('a request-log batch that fails does not stop the charges handed over with it (and vice versa)', async () => {
    const w = fresh.store.batchWriter!;
    const bad = logRow('r-bad');
    bad[3] = null as unknown as string; // endpoint is NOT NULL
    const [charges, log] = await Promise.allSettled([w.ledger([ledgerRow('k3', 'tok_w', 4)]), w.requestLog([logRow('r3'), bad])]);
    expect(charges.status).toBe('fulfilled');
    expect(log.status).toBe('rejected');
    expect(await spent()).toBe(15);
    expect(await count('request_log')).toBe(2); // r3 went with the failed batch (its GroupCommit retries it)

    const badCharge = ledgerRow('k-bad', 'tok_w', 1);
    badCharge[2] = null as unknown as string; // model is NOT NULL
    const [c2, l2] = await Promise.allSettled([w.ledger([ledgerRow('k4', 'tok_w', 1), badCharge]), w.requestLog([logRow('r4')])]);
    expect(c2.status).toBe('rejected');
    expect(l2.status).toBe('fulfilled');
    expect(await spent()).toBe(15); // the failed batch moved nothing
    expect(await count('request_log')).toBe(3);
  });
});
