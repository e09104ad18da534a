// Incident data in the request log: the channel that answered, every upstream attempt, the time to first byte; and a
// warn line per failover (channel, model, error code, request id — never a key or URL). Two upstream accounts, the
// primary failing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../simulator/index.ts';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { CircuitBreakers } from '../../../src/routing/circuit-breaker.ts';
import { postJson, useHarness } from '../../support/harness.ts';
import { secondUpstream } from '../../support/upstreams.ts';

const t = useHarness();
let backup: { sim: Simulator; close(): Promise<void> };
const CHAT = '/compatible-mode/v1/chat/completions';

beforeAll(async () => {
  backup = await secondUpstream(t.h);
});
afterAll(async () => backup?.close());
afterEach(() => {
  t.h.sim.faults.clear();
  t.h.gw.deps.breakers = new CircuitBreakers();
});

interface Attempt {
  channel_id: string;
  outcome: string;
  error_code: string | null;
  latency_ms: number;
}
interface LogRow {
  request_id: string;
  status: number;
  latency_ms: number;
  ttfb_ms: number | null;
  channel_id: string | null;
  attempts: Attempt[] | null;
}

async function logRow(rid: string): Promise<LogRow> {
  const r = await t.h.admin(`/admin/logs?request_id=${rid}`);
  expect(r.status).toBe(200);
  const { data } = (await r.json()) as { data: LogRow[] };
  expect(data).toHaveLength(1);
  return data[0]!;
}

const channelId = async (name: string) =>
  (await t.h.store.db.selectFrom('channels').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
const chat = (stream: boolean) => ({ model: 'qwx3.7-plus', stream, messages: [{ role: 'user', content: 'hello' }] });

describe('request log: channel, attempts, time to first byte', () => {
  for (const stream of [false, true]) {
    it(`${stream ? 'streaming' : 'whole'} chat failed over: both attempts, the backup as the channel, ttfb within the latency`, async () => {
      const primary = await channelId('sim-dashscope');
      const second = await channelId('backup-dashscope');
      t.h.sim.faults.add({ kind: 'status', arg: 503, path: CHAT });
      const r = await postJson(t.h, t.token, '/v1/chat/completions', chat(stream));
      expect(r.status).toBe(200);
      const row = await logRow(r.rid!);
      expect(row.channel_id).toBe(second);
      expect(row.attempts).toHaveLength(2);
      expect(row.attempts![0]).toMatchObject({
        channel_id: primary,
        outcome: 'error',
        error_code: 'upstream_unavailable',
      });
      expect(row.attempts![1]).toMatchObject({ channel_id: second, outcome: 'ok', error_code: null });
      for (const a of row.attempts!) expect(a.latency_ms).toBeGreaterThanOrEqual(0);
      expect(row.ttfb_ms).not.toBeNull();
      expect(row.ttfb_ms!).toBeLessThanOrEqual(row.latency_ms + 1);

      // The failover's log line: bound to the request, naming channel, model and code; no key, no upstream address.
      const lines = t.h.logs.filter((l) => l.includes('failing over') && l.includes(r.rid!));
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(line).toMatchObject({
        level: 40,
        request_id: r.rid,
        channel_id: primary,
        model: 'qwx3.7-plus',
        error_code: 'upstream_unavailable',
      });
      expect(lines[0]).not.toContain(DEFAULT_SIM_KEYS.dashscopeApiKey);
      expect(lines[0]).not.toContain(new URL(t.h.sim.url).host);
    });
  }

  it('one attempt that answered: its channel, one ok attempt, no failover line', async () => {
    const primary = await channelId('sim-dashscope');
    const r = await postJson(t.h, t.token, '/v1/chat/completions', chat(false));
    expect(r.status).toBe(200);
    const row = await logRow(r.rid!);
    expect(row.channel_id).toBe(primary);
    expect(row.attempts).toEqual([expect.objectContaining({ channel_id: primary, outcome: 'ok' })]);
    expect(t.h.logs.some((l) => l.includes('failing over') && l.includes(r.rid!))).toBe(false);
  });

  it('a request refused before any upstream call: no channel, no attempts, ttfb of the error answer', async () => {
    const r = await postJson(t.h, t.token, '/v1/chat/completions', { model: 'qwx3.7-plus', messages: 'not a list' });
    expect(r.status).toBe(400);
    const row = await logRow(r.rid!);
    expect(row.channel_id).toBeNull();
    expect(row.attempts).toBeNull();
    expect(row.ttfb_ms).not.toBeNull();
  });
});
