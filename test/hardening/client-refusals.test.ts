// An upstream refusal the client's own input caused (400, 408, 409, 411, 413, 415, 416, 431, 451, a content refusal) is
// the client's: it is
// answered as such, never counted against the channel's breaker and never sent to another channel. The issue's
// attack: one tenant's oversized beta header made the upstream answer 431 on both channels, and five calls opened
// every breaker for every tenant. Forwarded headers are bounded and refused before any upstream call.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/index.ts';
import { upstreamErrorCode } from '../../src/adapters/dashscope/errors.ts';
import { klingErrorCode } from '../../src/adapters/kling/errors.ts';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';
import { expectFamilyBError } from '../support/error-shapes.ts';
import { postJson, useHarness } from '../support/harness.ts';
import { ledgerOfRequest } from '../support/store-rows.ts';
import { secondUpstream } from '../support/upstreams.ts';

const t = useHarness();
let backup: { sim: Simulator; close(): Promise<void> };
const CHAT = '/compatible-mode/v1/chat/completions';
const MESSAGES = '/apps/anthropic/v1/messages';

beforeAll(async () => {
  backup = await secondUpstream(t.h);
});
afterAll(async () => backup?.close());
afterEach(() => {
  t.h.sim.faults.clear();
  backup.sim.faults.clear();
  t.h.gw.deps.breakers = new CircuitBreakers();
});

const chat = { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hello' }] };
const primaryId = () => t.h.gw.deps.channels.all().find((c) => c.name === 'sim-dashscope')!.id;
const upstreamCalls = (path: string) => t.h.sim.requestsTo(path).length + backup.sim.requestsTo(path).length;

describe('upstream refusals caused by the client', () => {
  for (const fault of [
    { kind: 'status', arg: 400, code: 'upstream_invalid_request' },
    { kind: 'status', arg: 413, code: 'upstream_invalid_request' },
    { kind: 'status', arg: 431, code: 'upstream_invalid_request' },
    ...[408, 409, 411, 415, 416, 451].map(
      (arg) => ({ kind: 'status', arg, code: 'upstream_invalid_request' }) as const,
    ),
    { kind: 'content-filter', code: 'upstream_content_filtered' },
  ] as const) {
    const name = 'arg' in fault ? `${fault.kind} ${fault.arg}` : fault.kind;
    it(`chat: upstream ${name} → 400 ${fault.code}, the backup never asked, the breaker stays closed after 6 calls`, async () => {
      t.h.sim.faults.add({ ...fault, path: CHAT });
      const backupBefore = backup.sim.requestsTo(CHAT).length;
      for (let i = 0; i < 6; i++) {
        const r = await postJson(t.h, t.token, '/v1/chat/completions', chat);
        expect(r.status).toBe(400);
        expectFamilyBError(r.text, r.rid, fault.code);
        expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
      }
      expect(backup.sim.requestsTo(CHAT).length).toBe(backupBefore);
      expect(t.h.gw.deps.breakers.isOpen(primaryId())).toBe(false);
      expect(t.h.gw.deps.breakers.view(primaryId()).consecutive_failures).toBe(0);
    });
  }

  it("both upstreams: 400, 408, 409, 411, 413, 414, 415, 416, 422, 431 and 451 are the client's invalid request", () => {
    for (const status of [400, 408, 409, 411, 413, 414, 415, 416, 422, 431, 451]) {
      expect(upstreamErrorCode(status, undefined)).toBe('upstream_invalid_request');
      expect(klingErrorCode(status, undefined)).toBe('upstream_invalid_request');
    }
  });

  it('a server failure still counts: upstream 500 on the primary is served by the backup', async () => {
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: CHAT });
    const r = await postJson(t.h, t.token, '/v1/chat/completions', chat);
    expect(r.status).toBe(200);
    expect(t.h.gw.deps.breakers.view(primaryId()).consecutive_failures).toBe(1);
  });
});

describe('forwarded headers are bounded', () => {
  const sdk = () => new Anthropic({ baseURL: t.h.url, apiKey: t.token, maxRetries: 0 });

  it('a 12 KB anthropic-beta header → 400 invalid_request naming it, before any upstream call; breakers untouched', async () => {
    const before = upstreamCalls(MESSAGES);
    for (let i = 0; i < 6; i++) {
      const err = await sdk()
        .messages.create(
          { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] },
          { headers: { 'anthropic-beta': 'b'.repeat(12_000) } },
        )
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      const body = (err as InstanceType<typeof Anthropic.BadRequestError>).error as {
        error: { code: string; param?: string };
      };
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.param).toBe('anthropic-beta');
    }
    expect(upstreamCalls(MESSAGES)).toBe(before);
    expect(t.h.gw.deps.breakers.view(primaryId()).consecutive_failures).toBe(0);
  });

  it('the same through the neutral spelling, streaming: refused before the stream starts', async () => {
    const before = upstreamCalls(MESSAGES);
    const r = await t.h.fetch('/v1/messages', {
      method: 'POST',
      token: t.token,
      headers: { 'messages-beta': 'x'.repeat(513) },
      json: { model: 'qwx3.7-plus', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'x' }] },
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { param: string } }).error.param).toBe('messages-beta');
    expect(upstreamCalls(MESSAGES)).toBe(before);
  });

  it('ordinary version and beta headers still reach the upstream in both spellings', async () => {
    const msg = await sdk().messages.create(
      { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] },
      { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } },
    );
    expect(msg.type).toBe('message');
    const last = [...t.h.sim.requestsTo(MESSAGES), ...backup.sim.requestsTo(MESSAGES)].at(-1)!;
    expect(last.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(last.headers['messages-beta']).toBe('prompt-caching-2024-07-31');
  });
});
