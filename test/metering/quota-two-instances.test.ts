// Two gateway instances, each with its own connection pool to one PostgreSQL database and sharing Redis, as two
// processes of a cluster: 50 parallel calls split across them against a quota that covers a few calls never
// charge more than the quota — the reservation is one compare-and-set in the database, whichever instance makes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../src/process-life.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { textReservation } from '../../src/core/text-estimate.ts';
import { ADMIN_KEY, SECRET, useHarness } from '../support/harness.ts';
import { testDialect } from '../support/store.ts';

const onPostgres = testDialect() === 'postgres' && !!process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

describe.runIf(onPostgres)('two instances on one PostgreSQL (+ Redis when configured)', () => {
  const t = useHarness({ env: { ...(redisUrl ? { REDIS_URL: redisUrl } : {}), TOLLWAY_TASK_POLLER: 'false' } });
  let store2: Store;
  let gw2: Gateway;
  let url2: string;
  beforeAll(async () => {
    store2 = await openStore(process.env.TEST_DATABASE_URL!, { pgSchema: t.h.pgSchema! });
    gw2 = await startGateway(t.h.config, { adminKey: ADMIN_KEY, secret: SECRET, store: store2 });
    url2 = (await gw2.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await gw2?.close();
    await store2?.close();
  });

  for (const [name, path, body, usage] of [
    [
      'chat',
      '/v1/chat/completions',
      (i: number) => ({ model: 'qwx3.7-plus', max_tokens: 64, messages: [{ role: 'user', content: `hello ${i}` }] }),
      'text',
    ],
    [
      'images',
      '/v1/images/generations',
      (i: number) => ({ model: 'qwx-image-2.0', prompt: `cat ${i}`, n: 1 }),
      'image',
    ],
  ] as const) {
    it(`${name}: 50 parallel calls across both instances charge at most the quota`, async () => {
      const h = t.h;
      const model = name === 'chat' ? 'qwx3.7-plus' : 'qwx-image-2.0';
      const reservation = h.gw.deps.meter.price(
        model,
        usage === 'text' ? textReservation(body(0), true) : { kind: 'images', images: 1 },
      ).amount;
      const quota = 3 * reservation + Math.floor(reservation / 2);
      const tok = await h.token({ name: `two-${name}`, quota });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${i % 2 ? url2 : h.url}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${tok.secret}`, 'content-type': 'application/json' },
            body: JSON.stringify(body(i)),
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { code: string } } })),
        ),
      );
      const ok = results.filter((r) => r.status === 200).length;
      expect(ok).toBeGreaterThanOrEqual(3);
      for (const r of results.filter((x) => x.status !== 200))
        expect([r.status, r.body.error?.code]).toEqual([429, 'insufficient_quota']);
      await h.gw.deps.meter.flush();
      await gw2.deps.meter.flush();
      const row = await h.store.db
        .selectFrom('tokens')
        .select(['spent', 'held'])
        .where('id', '=', tok.id)
        .executeTakeFirstOrThrow();
      expect(Number(row.spent) + Number(row.held)).toBeLessThanOrEqual(quota);
      expect(Number(row.held)).toBe(0);
      const ledger = await h.store.db.selectFrom('ledger').select('amount').where('token_id', '=', tok.id).execute();
      expect(ledger).toHaveLength(ok);
      expect(ledger.reduce((a, l) => a + Number(l.amount), 0)).toBe(Number(row.spent));
    });
  }
});
