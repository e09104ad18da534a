// The money series of /metrics: spend per model and kind equals the ledger's total after mixed traffic (chats,
// images, a video task settled by the poller), tokens in and out follow the charged usage, what an account with a
// limit has left is shown (accounts without a limit are not), and a budget refusal is told from a rate limit by its
// error code on tollway_requests_total.
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { scrape, sampleValue } from '../support/prometheus.ts';
import { flushWriters } from '../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';
import { until } from '../support/wait.ts';

const t = useHarness({ env: FAST_TASK_ENV, sim: { taskDurationMs: 200 } });

async function post<T>(path: string, json: unknown): Promise<T> {
  const r = await t.h.admin(path, { method: 'POST', json });
  expect(r.status).toBeLessThan(300);
  return (await r.json()) as T;
}

const chat = (secret: string, maxTokens = 20) =>
  t.h.fetch('/v1/chat/completions', {
    method: 'POST',
    token: secret,
    json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hello there' }], max_tokens: maxTokens },
  });

let limited = '';
let loose = '';
let poor = { id: '', token: '' };

beforeAll(async () => {
  limited = (await post<{ id: string }>('/admin/accounts', { name: 'metrics-limited', quota: 5_000_000 })).id;
  loose = (await post<{ id: string }>('/admin/accounts', { name: 'metrics-loose' })).id;
  const inLimited = await post<{ token: string }>('/admin/tokens', { name: 'm-lim', account_id: limited });
  poor = await post<{ id: string; token: string }>('/admin/tokens', { name: 'm-poor', quota: 1 });
  expect((await chat(t.token)).status).toBe(200);
  expect((await chat(inLimited.token)).status).toBe(200);
  const image = await t.h.fetch('/v1/images/generations', {
    method: 'POST',
    token: t.token,
    json: { model: 'qwx-image-2.0', prompt: 'a lighthouse', n: 1, size: '1024x1024' },
  });
  expect(image.status).toBe(200);
  const c = await createVideo(t.h, t.token, { model: 'wnx2.7-t2v', prompt: 'waves', seconds: 3, resolution: '720p' });
  expect(c.status).toBe(200);
  expect((await waitTerminal(t.h, t.token, c.json.id as string)).status).toBe('completed');
  await flushWriters(t.h);
});

describe('/metrics money', () => {
  it('tollway_spend_units_total equals the ledger, in total and per model and kind', async () => {
    const rows = await t.h.store.db.selectFrom('ledger').select(['model', 'kind', 'amount']).execute();
    const charges = rows.filter((r) => r.kind !== 'credit');
    expect(new Set(charges.map((r) => r.kind)).size).toBeGreaterThanOrEqual(3);
    const s = await scrape(t.h);
    const series = s.filter((x) => x.name === 'tollway_spend_units_total');
    const total = series.reduce((a, x) => a + x.value, 0);
    const ledger = charges.reduce((a, r) => a + Number(r.amount), 0);
    expect(Math.round(total * 1_000_000)).toBe(ledger);
    for (const r of charges) {
      const sum = charges.filter((x) => x.model === r.model && x.kind === r.kind).reduce((a, x) => a + +x.amount, 0);
      const v = sampleValue(s, 'tollway_spend_units_total', { model: r.model, kind: r.kind });
      expect(Math.round(v * 1_000_000)).toBe(sum);
    }
  });

  it('tollway_tokens_total counts the input and output tokens charged', async () => {
    const logs = await t.h.store.db
      .selectFrom('request_log')
      .select(['usage'])
      .where('model', '=', 'qwx3.7-plus')
      .where('status', '=', 200)
      .execute();
    let input = 0;
    let output = 0;
    for (const l of logs) {
      const u = JSON.parse(String(l.usage)) as { input_tokens: number; output_tokens: number };
      input += u.input_tokens;
      output += u.output_tokens;
    }
    expect(input).toBeGreaterThan(0);
    const s = await scrape(t.h);
    expect(sampleValue(s, 'tollway_tokens_total', { model: 'qwx3.7-plus', direction: 'input' })).toBe(input);
    expect(sampleValue(s, 'tollway_tokens_total', { model: 'qwx3.7-plus', direction: 'output' })).toBe(output);
  });

  it('tollway_account_remaining_units: an account with a quota shows what it leaves; one without a limit is absent', async () => {
    const row = await t.h.store.db
      .selectFrom('accounts')
      .select(['quota', 'spent', 'held'])
      .where('id', '=', limited)
      .executeTakeFirstOrThrow();
    expect(Number(row.spent)).toBeGreaterThan(0);
    const s = await scrape(t.h);
    const v = sampleValue(s, 'tollway_account_remaining_units', {
      account: limited,
      name: 'metrics-limited',
      limit: 'quota',
    });
    expect(Math.round(v * 1_000_000)).toBe(Number(row.quota) - Number(row.spent) - Number(row.held));
    expect(s.some((x) => x.name === 'tollway_account_remaining_units' && x.labels.account === loose)).toBe(false);
  });

  it('tollway_requests_total carries the error code: a refusal for want of quota is insufficient_quota', async () => {
    expect((await chat(poor.token)).status).toBe(429);
    const refusals = (s: Awaited<ReturnType<typeof scrape>>) =>
      s
        .filter((x) => x.name === 'tollway_requests_total' && x.labels.status === '429')
        .map((x) => [x.labels.code, x.value]);
    await until(async () => refusals(await scrape(t.h)).length > 0, 'the refusal counted');
    const s = await scrape(t.h);
    expect(refusals(s)).toEqual([['insufficient_quota', 1]]);
    expect(sampleValue(s, 'tollway_requests_total', { route: '/v1/chat/completions', status: '200', code: '' })).toBe(
      2,
    );
  });
});
