// The refusal of a call that does not fit: it names the estimate and what is left, says "used up" (with Retry-After)
// only when nothing is left, and a text call's refusal names the max_tokens that fits — which then does.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';

const t = useHarness();
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

async function post<T>(path: string, json: unknown): Promise<T> {
  const r = await t.h.admin(path, { method: 'POST', json });
  expect(r.status).toBeLessThan(300);
  return (await r.json()) as T;
}

async function chat(secret: string, maxTokens?: number) {
  const r = await t.h.fetch('/v1/chat/completions', {
    method: 'POST',
    token: secret,
    json: {
      model: 'qwx3.7-plus',
      messages: [{ role: 'user', content: 'hello' }],
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    },
  });
  const body = (await r.json()) as { error?: { code: string; message: string } };
  return { status: r.status, headers: r.headers, message: body.error?.message ?? '' };
}

const fitsAt = (message: string) => Number(/with max_tokens at most (\d+) it fits now/.exec(message)?.[1] ?? NaN);

describe('a refusal names the estimate and what is left', () => {
  it('a day budget with room left: no Retry-After, the max_tokens that fits, and that max_tokens is served', async () => {
    const tok = await post<{ token: string }>('/admin/tokens', {
      name: 'words-day',
      budgets: [{ period: 'day', limit: 3000 }],
    });
    const r = await chat(tok.token, 100_000);
    expect(r.status).toBe(429);
    expect(r.message).toMatch(
      /^This call's estimate \(0\.2\d{5} units\) is above what is left of the token's day budget \(0\.003000 units\); it reserves 100000 output tokens .*: with max_tokens at most \d+ it fits now, or wait until /,
    );
    expect(r.message).toMatch(ISO);
    expect(r.message).not.toMatch(/spent|used up/);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.headers.get('x-budget-period')).toBe('day');
    expect(r.headers.get('x-budget-reset')).toMatch(ISO);
    const n = fitsAt(r.message);
    expect(n).toBeGreaterThan(1000);
    expect((await chat(tok.token, n + 1)).status).toBe(429);
    expect((await chat(tok.token, n)).status).toBe(200);
  });

  it('without max_tokens the 4096 output tokens reserved are named, with the max_tokens that fits', async () => {
    const tok = await post<{ token: string }>('/admin/tokens', {
      name: 'words-default',
      budgets: [{ period: 'day', limit: 5000 }],
    });
    const r = await chat(tok.token);
    expect(r.status).toBe(429);
    expect(r.message).toContain('it reserves 4096 output tokens (its max_tokens, or 4096 when it sets none)');
    const n = fitsAt(r.message);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(4096);
    expect((await chat(tok.token, n)).status).toBe(200);
  });

  it('a budget used up says so, with Retry-After until the period starts again', async () => {
    const tok = await post<{ token: string }>('/admin/tokens', {
      name: 'words-none',
      budgets: [{ period: 'day', limit: 0 }],
    });
    const r = await chat(tok.token, 10);
    expect(r.status).toBe(429);
    expect(r.message).toMatch(
      new RegExp(`^The token's day budget is used up; it starts again at ${ISO.source} \\(request id`),
    );
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("a token's quota and an account's budget are named as such; a quota has no reset", async () => {
    const quota = await post<{ token: string }>('/admin/tokens', { name: 'words-quota', quota: 100 });
    const q = await chat(quota.token, 1000);
    expect(q.status).toBe(429);
    expect(q.message).toMatch(/is above what is left of the token's quota \(0\.000100 units\)/);
    expect(q.message).not.toMatch(/wait until/);
    expect(q.headers.get('retry-after')).toBeNull();
    expect(q.headers.get('x-budget-reset')).toBeNull();
    const acc = await post<{ id: string }>('/admin/accounts', {
      name: 'words-account',
      budgets: [{ period: 'week', limit: 2000 }],
    });
    const inAcc = await post<{ token: string }>('/admin/tokens', { name: 'words-acc', account_id: acc.id });
    const a = await chat(inAcc.token, 100_000);
    expect(a.status).toBe(429);
    expect(a.message).toMatch(/is above what is left of the account's week budget \(0\.002000 units\)/);
  });
});
