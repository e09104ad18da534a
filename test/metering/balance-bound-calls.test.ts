// A token whose balance reached MAX_BALANCE (2^53 − 1) is refused, not served for nothing: the attack of a token
// without a quota charged huge upstream usage (its charge cut at the bound), then calling on. Through a real
// gateway on the store TOLLWAY_TEST_DIALECT names.
import { describe, expect, it } from 'vitest';
import { MAX_BALANCE } from '../../src/metering/balance-bound.ts';
import { postJson, useHarness } from '../support/harness.ts';
import { flushWriters } from '../support/store-rows.ts';

const t = useHarness();

const chat = (token: string, content: string) =>
  postJson(t.h, token, '/v1/chat/completions', { model: 'qwx3.7-plus', messages: [{ role: 'user', content }] });

describe('a token at the balance bound', () => {
  it('is refused insufficient_quota once a charge was cut at the bound, and its spent stays there', async () => {
    const { h } = t;
    const { id, secret } = await h.token({ name: 'at-bound' });
    await h.store.db
      .updateTable('tokens')
      .set({ spent: MAX_BALANCE - 1000 })
      .where('id', '=', id)
      .execute();
    // The upstream reports 10^20 tokens: the charge is cut to the 1,000 left.
    expect((await chat(secret, 'sim-fault:huge-usage')).status).toBe(200);
    await flushWriters(h);
    const spent = async () =>
      Number(
        (await h.store.db.selectFrom('tokens').select('spent').where('id', '=', id).executeTakeFirstOrThrow()).spent,
      );
    expect(await spent()).toBe(MAX_BALANCE);
    for (let i = 0; i < 3; i++) {
      const r = await chat(secret, `free ride ${i}`);
      expect(r.status).toBe(429);
      expect(r.text).toContain('insufficient_quota');
    }
    expect(
      h.sim.requestsTo('/chat/completions').filter((r) => JSON.stringify(r.body).includes('free ride')),
    ).toHaveLength(0);
    await flushWriters(h);
    expect(await spent()).toBe(MAX_BALANCE);
  });
});
