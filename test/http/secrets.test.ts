// Secrets never leave the process: recognisable upstream keys and the admin key are configured, a batch
// of requests (including upstream errors that echo the credential and the upstream URL) is run, and every
// captured log line and every response body is searched for them.
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';

const GOOD_KEY = 'sk-SECRET-CANARY-123456'; // the simulator accepts this one
const WRONG_KEY = 'WRONGKEY-CANARY-98765'; // no sk- prefix: only the registered-secret step can catch it
const KLING_SK = 'KLING-SK-CANARY-4242424242';

const t = useHarness({ channels: false, sim: { dashscopeApiKey: GOOD_KEY }, env: { LOG_LEVEL: 'trace' } });
const seen: Array<{ what: string; status: number; body: string; headers: string }> = [];

beforeAll(async () => {
  const mk = async (json: Record<string, unknown>) =>
    expect((await t.h.admin('/admin/channels', { method: 'POST', json })).status).toBe(201);
  await mk({
    name: 'good',
    kind: 'dashscope',
    base_url: t.h.sim.url,
    api_key: GOOD_KEY,
    models: ['qwx3.7-plus', 'text-embedding-v4'],
  });
  await mk({ name: 'wrong', kind: 'dashscope', base_url: t.h.sim.url, api_key: WRONG_KEY, models: ['qwx3-vl-plus'] });
  await mk({
    name: 'kling',
    kind: 'kling',
    base_url: t.h.sim.url,
    access_key: 'kling-ak-visible',
    secret_key: KLING_SK,
  });
});

async function record(what: string, r: Promise<Response>): Promise<{ status: number; text: string }> {
  const res = await r;
  const text = await res.text();
  seen.push({ what, status: res.status, body: text, headers: JSON.stringify(Object.fromEntries(res.headers)) });
  return { status: res.status, text };
}

describe('no secret in any response or log line', () => {
  it('the simulator really received the keys and really echoes them (so the checks below can fail)', async () => {
    const direct = await fetch(`${t.h.sim.url}/compatible-mode/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GOOD_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3.7-plus', messages: [{ role: 'user', content: 'sim-fault:leak:400' }] }),
    });
    const text = await direct.text();
    expect(text).toContain(GOOD_KEY);
    expect(text).toContain(t.h.sim.url);
  });

  it('runs a batch of requests, including upstream errors that echo keys and URLs', async () => {
    const { secret } = await t.h.token();
    const chat = (content: string, extra: Record<string, unknown> = {}) =>
      t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: secret,
        json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content }], ...extra },
      });

    const ok = await record('chat ok', chat('hello'));
    expect(ok.status).toBe(200);

    // wrong channel key: the simulator answers its 401 body; the gateway maps it (the client cannot fix it)
    const wrong = await record(
      'wrong key',
      t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: secret,
        json: { model: 'qwx3-vl-plus', messages: [{ role: 'user', content: 'hi' }] },
      }),
    );
    expect(wrong.status).toBe(502);
    expect(JSON.parse(wrong.text).error.code).toBe('upstream_auth_error');
    expect(t.h.sim.requestsTo('/').some((r) => JSON.stringify(r.headers).includes(WRONG_KEY))).toBe(true);

    // upstream bodies echoing the credential and the upstream URL, at several statuses, stream and not
    const leak400 = await record('leak 400', chat('sim-fault:leak:400'));
    expect(leak400.status).toBe(400);
    // The client gets our words only; the upstream's (scrubbed of the credential) are in the request's log line.
    expect(JSON.parse(leak400.text).error.message).toMatch(
      /^The upstream refused a parameter of the request \(request id: req_/,
    );
    expect(leak400.text).not.toContain('Credential received');
    const rid = JSON.parse(leak400.text).error.request_id as string;
    const line = t.h.logs
      .map((l) => JSON.parse(l) as { msg?: string; request_id?: string; upstream_error?: string })
      .find((l) => l.msg === 'request' && l.request_id === rid);
    expect(line?.upstream_error).toMatch(
      /^HTTP 400 invalid_parameter_error: Request rejected\. Credential received: Bearer \[redacted\]/,
    );
    expect((await record('leak 401', chat('sim-fault:leak:401'))).status).toBe(502);
    expect((await record('leak 403', chat('sim-fault:leak:403'))).status).toBe(403);
    expect((await record('leak 429 stream', chat('sim-fault:leak:429', { stream: true }))).status).toBe(429);
    expect(
      (await record('leak 500 stream', chat('sim-fault:leak:500', { stream: true }))).status,
    ).toBeGreaterThanOrEqual(500);
    expect(
      (
        await record(
          'leak embeddings',
          t.h.fetch('/v1/embeddings', {
            method: 'POST',
            token: secret,
            json: { model: 'text-embedding-v4', input: ['sim-fault:leak:400'] },
          }),
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await record(
          'leak responses',
          t.h.fetch('/v1/responses', {
            method: 'POST',
            token: secret,
            json: {
              model: 'qwx3.7-plus',
              input: [{ role: 'user', content: [{ type: 'input_text', text: 'sim-fault:leak:400' }] }],
            },
          }),
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await record(
          'leak messages',
          t.h.fetch('/v1/messages', {
            method: 'POST',
            token: secret,
            json: { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'sim-fault:leak:400' }] },
          }),
        )
      ).status,
    ).toBe(400);

    // transport-level failures whose causes carry the upstream address
    for (const f of ['reset', 'malformed', 'status:503']) {
      const r = await record(`fault ${f}`, chat(`sim-fault:${f}`));
      expect(r.status, f).toBeGreaterThanOrEqual(500);
    }

    // admin views of channels and the audit log
    expect((await record('channels', t.h.admin('/admin/channels'))).status).toBe(200);
    expect((await record('audit', t.h.admin('/admin/audit'))).status).toBe(200);
    // an admin request that is refused while carrying a key
    expect(
      (
        await record(
          'refused channel',
          t.h.admin('/admin/channels', {
            method: 'POST',
            json: { name: 'x', kind: 'dashscope', api_key: GOOD_KEY, base_url: 'https://dashscope-intl.aliyuncs.com' },
          }),
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await record(
          'dup channel',
          t.h.admin('/admin/channels', {
            method: 'POST',
            json: { name: 'good', kind: 'dashscope', api_key: GOOD_KEY },
          }),
        )
      ).status,
    ).toBe(409);
  });

  it('no canary, no admin key and no upstream address in any response', () => {
    expect(seen.length).toBeGreaterThan(10);
    const upstreamAddr = t.h.sim.url.replace('http://', '');
    for (const s of seen) {
      for (const needle of [GOOD_KEY, WRONG_KEY, KLING_SK, t.h.adminKey, 'CANARY']) {
        expect(s.body, `${s.what} body`).not.toContain(needle);
        expect(s.headers, `${s.what} headers`).not.toContain(needle);
      }
      if (s.status >= 400) {
        expect(s.body, `${s.what}`).not.toContain(upstreamAddr);
        expect(s.body, `${s.what}`).not.toMatch(/127\.0\.0\.1:\d+/);
        expect(s.body, `${s.what}`).not.toMatch(/aliyuncs\.com|klingai\.com/);
      }
    }
  });

  it('no canary and no admin key in any log line (even at trace level)', () => {
    const all = t.h.logs.join('');
    expect(t.h.logs.length).toBeGreaterThan(10);
    for (const needle of [GOOD_KEY, WRONG_KEY, KLING_SK, t.h.adminKey, 'CANARY']) expect(all).not.toContain(needle);
    // every access line carries the request id
    const access = t.h.logs
      .map((l) => JSON.parse(l) as { msg?: string; request_id?: string })
      .filter((l) => l.msg === 'request');
    expect(access.length).toBeGreaterThan(10);
    for (const l of access) expect(l.request_id).toMatch(/^req_/);
  });
});
