// Quotas under pressure, through the real server on the test store: 50 parallel calls of each metered kind against
// a token whose quota covers a few calls. Every call reserves its upper estimate before the upstream is asked, so
// what is charged never passes the quota; the refused calls get 429 insufficient_quota in the family's shape with
// the request id; no reservation is left behind; and the ledger, the token's `spent` and the request log agree.
import { describe, expect, it } from 'vitest';
import { textReservation } from '../../src/core/text-estimate.ts';
import { MAX_CHARGE } from '../../src/pricing/prices.ts';
import type { Usage } from '../../src/metering/types.ts';
import { useHarness } from '../support/harness.ts';

const ctx = useHarness({ env: { TOLLWAY_SIM_TASK_MS: '60000' } });
const N = 50;

interface Kind {
  name: string;
  path: string;
  model: string;
  body: (i: number) => Record<string, unknown>;
  /** What the gateway reserves for one call (text: its upper estimate; media: the exact price). */
  reserve: (body: Record<string, unknown>) => Usage;
  family?: 'vidx';
}

const text = (output: boolean) => (b: Record<string, unknown>) => textReservation(b, output);
const KINDS: Kind[] = [
  {
    name: 'chat',
    path: '/v1/chat/completions',
    model: 'qwx3.7-plus',
    body: (i) => ({ model: 'qwx3.7-plus', max_tokens: 64, messages: [{ role: 'user', content: `hello ${i}` }] }),
    reserve: text(true),
  },
  {
    name: 'stream',
    path: '/v1/chat/completions',
    model: 'qwx3.7-plus',
    body: (i) => ({
      model: 'qwx3.7-plus',
      stream: true,
      max_tokens: 64,
      messages: [{ role: 'user', content: `hello ${i}` }],
    }),
    reserve: text(true),
  },
  {
    name: 'responses',
    path: '/v1/responses',
    model: 'qwx3.7-plus',
    body: (i) => ({ model: 'qwx3.7-plus', max_output_tokens: 64, input: `hello ${i}` }),
    reserve: text(true),
  },
  {
    name: 'messages',
    path: '/v1/messages',
    model: 'qwx3.7-plus',
    body: (i) => ({ model: 'qwx3.7-plus', max_tokens: 64, messages: [{ role: 'user', content: `hello ${i}` }] }),
    reserve: text(true),
  },
  {
    name: 'embeddings',
    path: '/v1/embeddings',
    model: 'text-embedding-v4',
    body: (i) => ({ model: 'text-embedding-v4', input: [`hello ${i}`] }),
    reserve: text(false),
  },
  {
    name: 'images',
    path: '/v1/images/generations',
    model: 'qwx-image-2.0',
    body: (i) => ({ model: 'qwx-image-2.0', prompt: `a cat ${i}`, n: 1 }),
    reserve: () => ({ kind: 'images', images: 1 }),
  },
  {
    name: 'videos',
    path: '/v1/videos',
    model: 'hhx-1.1-t2v',
    body: (i) => ({ model: 'hhx-1.1-t2v', prompt: `waves ${i}`, seconds: 3 }),
    reserve: () => ({ kind: 'video', outputSeconds: 3, inputSeconds: 0, tier: '1080p' }),
  },
  {
    name: 'vidx',
    path: '/vidx/v1/videos/text2video',
    model: 'vidx-v1',
    body: (i) => ({ model_name: 'vidx-v1', prompt: `waves ${i}`, duration: '5' }),
    reserve: () => ({ kind: 'video-mode', outputSeconds: 5, tier: 'std' }),
    family: 'vidx',
  },
];

async function tokenRow(id: string) {
  const t = await ctx.h.store.db
    .selectFrom('tokens')
    .select(['spent', 'held', 'quota'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { spent: Number(t.spent), held: Number(t.held) };
}

describe(`${N} parallel calls per kind against a quota that covers 3 reservations`, () => {
  for (const kind of KINDS) {
    it(kind.name, async () => {
      const h = ctx.h;
      const reservation = h.gw.deps.meter.price(kind.model, kind.reserve(kind.body(0))).amount;
      expect(reservation).toBeGreaterThan(0);
      const quota = 3 * reservation + Math.floor(reservation / 2);
      const t = await h.token({ name: `burst-${kind.name}`, quota });
      const results = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          h.fetch(kind.path, { method: 'POST', token: t.secret, json: kind.body(i) }).then(async (r) => ({
            status: r.status,
            rid: r.headers.get('x-gateway-request-id'),
            text: await r.text(),
          })),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      // At least the three reservations the quota covers land; more only once earlier calls settled below their
      // estimate.
      expect(ok.length).toBeGreaterThanOrEqual(3);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(r.status).toBe(429);
        const body = JSON.parse(r.text) as {
          code?: number;
          request_id?: string;
          error?: { code: string; request_id: string };
        };
        if (kind.family === 'vidx') expect(body.request_id).toBe(r.rid);
        else expect(body.error).toMatchObject({ code: 'insufficient_quota', request_id: r.rid });
      }
      await h.gw.deps.meter.flush();
      // A stream's settlement commits right after its last byte was sent: wait for it.
      const openHolds = () =>
        h.store.db
          .selectFrom('holds')
          .select(['hold_key'])
          .where('token_id', '=', t.id)
          .where('state', '=', 'held')
          .execute();
      for (let i = 0; i < 100 && kind.name === 'stream' && (await openHolds()).length > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      const row = await tokenRow(t.id);
      // Charged plus still held never passes the quota.
      expect(row.spent + row.held).toBeLessThanOrEqual(quota);
      const ledger = await h.store.db.selectFrom('ledger').select(['amount']).where('token_id', '=', t.id).execute();
      expect(ledger.reduce((a, l) => a + Number(l.amount), 0)).toBe(row.spent);
      const open = await openHolds();
      if (kind.name === 'videos' || kind.name === 'vidx') {
        // Async tasks hold until their terminal state (the simulated tasks are still running).
        expect(open).toHaveLength(ok.length);
        expect(row.held).toBe(ok.length * reservation);
      } else {
        expect(open).toEqual([]);
        expect(row.held).toBe(0);
        expect(ledger).toHaveLength(ok.length);
      }
    });
  }
});

describe('no charge without a result', () => {
  for (const [name, path, body] of [
    [
      'chat',
      '/v1/chat/completions',
      { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'sim-fault:empty' }] },
    ],
    ['embeddings', '/v1/embeddings', { model: 'text-embedding-v4', input: ['sim-fault:empty'] }],
    ['responses', '/v1/responses', { model: 'qwx3.7-plus', input: 'sim-fault:empty' }],
    [
      'messages',
      '/v1/messages',
      { model: 'qwx3.7-plus', max_tokens: 32, messages: [{ role: 'user', content: 'sim-fault:empty' }] },
    ],
  ] as const) {
    it(`${name}: an upstream 200 with no result and no usage is an upstream error, not charged (with and without a quota)`, async () => {
      const h = ctx.h;
      for (const quota of [undefined, 10_000_000]) {
        const t = await h.token({ name: `empty-${name}`, ...(quota ? { quota } : {}) });
        const r = await h.fetch(path, { method: 'POST', token: t.secret, json: body });
        expect(r.status).toBe(502);
        const rid = r.headers.get('x-gateway-request-id');
        const e = (await r.json()) as { error: { code: string; request_id: string } };
        expect(e.error).toMatchObject({ code: 'upstream_error', request_id: rid });
        await h.gw.deps.meter.flush();
        expect(await h.store.db.selectFrom('ledger').selectAll().where('token_id', '=', t.id).execute()).toEqual([]);
        expect(await tokenRow(t.id)).toEqual({ spent: 0, held: 0 });
      }
    });
  }
});

describe('amounts stay exact', () => {
  it('a reported usage of 1e20 tokens is clamped to MAX_CHARGE, an exact integer in the ledger and spent, with an audit line', async () => {
    const h = ctx.h;
    const t = await h.token({ name: 'huge' });
    const r = await h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.secret,
      json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'count sim-fault:huge-usage' }] },
    });
    expect(r.status).toBe(200);
    const rid = r.headers.get('x-gateway-request-id')!;
    await h.gw.deps.meter.flush();
    const [row] = await h.store.db.selectFrom('ledger').selectAll().where('request_id', '=', rid).execute();
    expect(row).toBeDefined();
    // Read back as text: a float would come back as 1e+15 or with a fraction.
    expect(String(row!.amount)).toBe(String(MAX_CHARGE));
    expect(Number.isSafeInteger(Number(row!.amount))).toBe(true);
    expect(JSON.parse(row!.quantities)).toMatchObject({ input_tokens: 1e20, clamped_from: expect.any(String) });
    expect((await tokenRow(t.id)).spent).toBe(MAX_CHARGE);
    const audit = await h.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'charge.clamped')
      .where('target', '=', rid)
      .execute();
    expect(audit).toHaveLength(1);
  });
});
