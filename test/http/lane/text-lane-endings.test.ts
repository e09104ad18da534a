// How a text-lane call ends when its client or the server goes first: a client that closes during a slow call leaves
// one row carrying what the ledger charged; a lane POST read after close() began gets 503 and connection: close.
import { Client } from 'undici';
import { describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { ledgerOfRequest } from '../../support/store-rows.ts';
import { asResponse, CHAT, chat, expectChatOk } from '../../support/lane.ts';

const LIMIT = 2048;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const t = useHarness({ env: { TOLLWAY_BODY_LIMIT: String(LIMIT) } });

describe('a client that goes away', () => {
  it('closing during a slow non-streaming call: the call still completes upstream, and its one row (499, client_closed) carries the amount the ledger was charged', async () => {
    const tok = await t.h.token({ name: 'closer' });
    const ac = new AbortController();
    const pending = t.h
      .fetch(CHAT, { method: 'POST', token: tok.secret, json: chat('close me sim-fault:delay:800'), signal: ac.signal })
      .then(
        () => 'answered',
        (e: unknown) => (e instanceof Error ? e.name : 'error'),
      );
    const reached = () =>
      t.h.sim.requestsTo('/chat/completions').some((r) => JSON.stringify(r.body).includes('close me'));
    for (let i = 0; i < 300 && !reached(); i++) await sleep(10);
    expect(reached()).toBe(true);
    ac.abort();
    expect(await pending).toBe('AbortError');
    const rowsOf = async () => {
      await t.h.gw.deps.requestLog.flush();
      return t.h.store.db.selectFrom('request_log').selectAll().where('token_id', '=', tok.id).execute();
    };
    // The row waits for the upstream answer (~800 ms): written once, after the route settled.
    let rows = await rowsOf();
    for (let i = 0; i < 150 && rows.length === 0; i++) {
      await sleep(20);
      rows = await rowsOf();
    }
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ endpoint: CHAT, status: 499, error_code: 'client_closed' });
    const charged = await ledgerOfRequest(t.h, rows[0]!.request_id);
    expect(charged).toHaveLength(1);
    expect(Number(rows[0]!.amount)).toBe(Number(charged[0]!.amount));
    expect(Number(rows[0]!.amount)).toBeGreaterThan(0);
    expect(rows[0]!.upstream_request_id).not.toBeNull();
    await sleep(200);
    rows = await rowsOf();
    expect(rows.map((r) => r.error_code)).toEqual(['client_closed']);
    await expectChatOk(await t.h.fetch(CHAT, { method: 'POST', token: tok.secret, json: chat('still there') }));
  });
});

describe('during shutdown', () => {
  const t2 = useHarness();

  it('a lane POST pipelined on a busy connection after close() began gets 503 service_unavailable, connection: close', async () => {
    const c = new Client(t2.h.url, { pipelining: 2 });
    try {
      const { secret } = await t2.h.token();
      const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
      // An in-flight request keeps the connection busy (not idle) while close() starts.
      const slow = c.request({
        method: 'POST',
        path: CHAT,
        headers,
        body: JSON.stringify(chat('drain sim-fault:delay:1000')),
      });
      while (!t2.h.sim.requestsTo('/chat/completions').some((r) => JSON.stringify(r.body).includes('drain')))
        await sleep(10);
      const closing = t2.h.gw.app.close();
      // Pipelined on the same busy connection: the server reads it after close() began.
      const before = t2.h.sim.requestsTo('').length;
      const late = c.request({ method: 'POST', path: CHAT, headers, body: JSON.stringify(chat('too late')) });
      const first = await slow;
      expect(first.statusCode).toBe(200); // in-flight work drains
      await first.body.text();
      const r = await late;
      expect(r.headers.connection).toBe('close');
      expect(r.headers['retry-after']).toBe('1');
      await expectB(await asResponse(r), 503, 'service_unavailable');
      expect(t2.h.sim.requestsTo('').length).toBe(before);
      await closing;
    } finally {
      await c.close().catch(() => undefined);
    }
  });
});
