// Upstream faults on the text endpoints (chat, responses, messages — streaming and not — and embeddings),
// injected by the simulator: each has one expected client-visible result (status, code, family shape, no
// leak) and one ledger state (nothing charged when nothing was delivered; exactly one charge otherwise).
import { describe, expect, it } from 'vitest';
import { expectFamilyBError, expectNoLeak } from '../support/error-shapes.ts';
import { postJson, useHarness } from '../support/harness.ts';
import { ledgerOfRequest, requestLogRow } from '../support/store-rows.ts';

const TIMEOUTS = { TOLLWAY_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '600', TOLLWAY_UPSTREAM_IDLE_TIMEOUT_MS: '500' };

type Body = (marker: string, stream: boolean) => Record<string, unknown>;
const ENDPOINTS: Array<{ path: string; body: Body; streams: boolean }> = [
  {
    path: '/v1/chat/completions',
    streams: true,
    body: (m, s) => ({ model: 'qwx3.7-plus', stream: s, messages: [{ role: 'user', content: `hello ${m}` }] }),
  },
  {
    path: '/v1/responses',
    streams: true,
    body: (m, s) => ({
      model: 'qwx3.7-plus',
      stream: s,
      input: [{ role: 'user', content: [{ type: 'input_text', text: `hello ${m}` }] }],
    }),
  },
  {
    path: '/v1/messages',
    streams: true,
    body: (m, s) => ({
      model: 'qwx3.7-plus',
      stream: s,
      max_tokens: 64,
      messages: [{ role: 'user', content: `hello ${m}` }],
    }),
  },
  { path: '/v1/embeddings', streams: false, body: (m) => ({ model: 'text-embedding-v4', input: `hello ${m}` }) },
];

/** Faults answered before any byte reached the client: a JSON error, nothing charged. */
const BEFORE_FIRST_BYTE: Array<{ fault: string; status: number; code: string; only?: string }> = [
  { fault: 'status:500', status: 502, code: 'upstream_error' },
  { fault: 'status:503', status: 503, code: 'upstream_unavailable' },
  { fault: 'status:429', status: 429, code: 'upstream_rate_limited' },
  { fault: 'timeout', status: 504, code: 'upstream_timeout' },
  { fault: 'delay:3000', status: 504, code: 'upstream_timeout', only: '/v1/chat/completions' },
  { fault: 'reset', status: 502, code: 'upstream_error' },
  { fault: 'lost-reply', status: 502, code: 'upstream_error' },
];

const t = useHarness({ env: TIMEOUTS });

const post = (path: string, json: unknown) => postJson(t.h, t.token, path, json);

describe('text endpoints: faults before the first byte → family-B JSON error, no charge', () => {
  for (const ep of ENDPOINTS) {
    for (const stream of ep.streams ? [false, true] : [false]) {
      for (const f of BEFORE_FIRST_BYTE.filter((x) => !x.only || x.only === ep.path)) {
        it(`${ep.path}${stream ? ' (stream)' : ''}: upstream ${f.fault} → ${f.status} ${f.code}`, async () => {
          const r = await post(ep.path, ep.body(`sim-fault:${f.fault}`, stream));
          expect(r.status).toBe(f.status);
          expect(r.type).toContain('application/json');
          expectFamilyBError(r.text, r.rid, f.code);
          expectNoLeak(t.h, r.text);
          expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
          const log = await requestLogRow(t.h, r.rid!);
          expect(log.status).toBe(f.status);
          expect(log.error_code).toBe(f.code);
          expect(Number(log.amount)).toBe(0);
        });
      }
      if (!stream) {
        it(`${ep.path}: malformed upstream JSON → 502 upstream_error, no charge`, async () => {
          const r = await post(ep.path, ep.body('sim-fault:malformed', false));
          expect(r.status).toBe(502);
          expectFamilyBError(r.text, r.rid, 'upstream_error');
          expectNoLeak(t.h, r.text);
          expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
        });
      }
    }
  }
});

describe('text streams: faults after the first byte → an error event ends the stream, metered at most once', () => {
  const STREAMING = ENDPOINTS.filter((e) => e.streams);
  for (const ep of STREAMING) {
    for (const fault of ['cut', 'malformed', 'trickle:3000']) {
      it(`${ep.path} (stream): upstream ${fault} → 200, partial stream ending in an error event, charged once if it produced output`, async () => {
        const r = await post(ep.path, ep.body(`sim-fault:${fault}`, true));
        expect(r.status).toBe(200);
        expect(r.type).toContain('text/event-stream');
        const last = r.text.trim().split('\n\n').pop() ?? '';
        expect(last).toMatch(/"error"/);
        const code = fault.startsWith('trickle') ? 'upstream_timeout' : 'upstream_error';
        expect(last).toContain(`"code":"${code}"`);
        expect(last).toContain(String(r.rid));
        expectNoLeak(t.h, r.text);
        // Output produced (a cut stream): metered exactly once, by reported usage or the estimate. A stream that broke
        // before any output and reported no usage has no result: nothing is charged.
        const rows = await ledgerOfRequest(t.h, r.rid!);
        if (fault === 'cut') expect(rows).toHaveLength(1);
        else if (fault === 'malformed') expect(rows).toHaveLength(0);
        else expect(rows.length).toBeLessThanOrEqual(1);
        const log = await requestLogRow(t.h, r.rid!);
        expect(Number(log.amount)).toBe(rows.reduce((a, x) => a + Number(x.amount), 0));
      });
    }
    it(`${ep.path} (stream): a slow trickle within the idle timeout completes, one charge`, async () => {
      const r = await post(ep.path, ep.body('sim-fault:trickle:60', true));
      expect(r.status).toBe(200);
      expect(r.text).not.toMatch(/"error"/);
      expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(1);
    });
  }

  it('a cut stream is never repeated upstream (bytes already reached the client)', async () => {
    const before = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length;
    const r = await post('/v1/chat/completions', ENDPOINTS[0]!.body('sim-fault:cut', true));
    expect(r.status).toBe(200);
    expect(t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length).toBe(before + 1);
  });

  it('a failed non-streaming call is retried (safe) but charged nothing', async () => {
    const before = t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length;
    const r = await post('/v1/chat/completions', ENDPOINTS[0]!.body('sim-fault:status:500', false));
    expect(r.status).toBe(502);
    expect(t.h.sim.requestsTo('/compatible-mode/v1/chat/completions').length).toBe(before + 2);
    expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
  });

  it('one transient upstream failure is absorbed by the retry: 200, exactly one charge', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 503, path: '/compatible-mode/v1/chat/completions', times: 1 });
    const r = await post('/v1/chat/completions', ENDPOINTS[0]!.body('', false));
    expect(r.status).toBe(200);
    expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(1);
    t.h.sim.faults.clear();
  });
});
