import { describe, expect, it } from 'vitest';
import { dashscopeError } from '../../src/adapters/dashscope/errors.ts';
import { dashscopeStreamError } from '../../src/adapters/dashscope/compat-chat-common.ts';
import { klingError } from '../../src/adapters/kling/errors.ts';
import type { GatewayError } from '../../src/errors/gateway-error.ts';
import type { Channel } from '../../src/routing/channel-registry.ts';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';
import { withFailover, type RetryPolicy } from '../../src/routing/failover.ts';

const ch = (id: string): Channel => ({
  id,
  name: id,
  kind: 'dashscope',
  baseUrl: 'http://x',
  keys: {},
  models: null,
  priority: 0,
  weight: 1,
  upstreamAccount: null,
  taskSlots: null,
  modelLimits: null,
});

// Every form an upstream rate limit arrives in, as the adapters read it.
const FORMS: ReadonlyArray<readonly [string, () => GatewayError]> = [
  ['native RPM', () => dashscopeError(429, { code: 'Throttling.RateQuota', message: 'Requests rate limit exceeded' })],
  [
    'native TPM',
    () => dashscopeError(429, { code: 'Throttling.AllocationQuota', message: 'Allocated quota exceeded' }),
  ],
  [
    'native burst',
    () => dashscopeError(429, { code: 'Throttling.BurstRate', message: 'Request rate increased too quickly' }),
  ],
  [
    'compatible RPM',
    () =>
      dashscopeError(429, {
        error: { code: 'limit_requests', type: 'limit_requests', message: 'You exceeded your current requests list.' },
      }),
  ],
  [
    'compatible TPM',
    () =>
      dashscopeError(429, {
        error: { code: 'insufficient_quota', type: 'insufficient_quota', message: 'You exceeded your current quota' },
      }),
  ],
  [
    'messages-compatible',
    () =>
      dashscopeError(429, {
        type: 'error',
        error: { type: 'rate_limit_error', message: 'Requests rate limit exceeded' },
      }),
  ],
  [
    'an error event in a stream',
    () => dashscopeStreamError('{"code":"Throttling.RateQuota","message":"Requests rate limit exceeded"}'),
  ],
  ['a bare DashScope 429', () => dashscopeError(429, null)],
  ['Kling 1302', () => klingError(429, { code: 1302, message: 'rate limit' })],
  ['Kling 1303', () => klingError(429, { code: 1303, message: 'parallel task over resource pack limit' })],
  ['a bare Kling 429', () => klingError(429, null)],
];

describe("an upstream rate limit never counts against the channel's breaker", () => {
  it.each(FORMS)('%s', async (_name, refusal) => {
    for (const policy of ['safe', 'connect-only'] as RetryPolicy[]) {
      const breakers = new CircuitBreakers({ threshold: 2, cooldownMs: 60_000 });
      for (let i = 0; i < 5; i++)
        await withFailover(
          [ch('a')],
          breakers,
          async () => {
            throw refusal();
          },
          { policy, maxAttempts: 2, sleep: async () => undefined },
        ).catch(() => undefined);
      expect(breakers.view('a')).toMatchObject({ state: 'closed', consecutive_failures: 0 });
    }
  });
});
