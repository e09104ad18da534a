// Failover: which failed calls move to the next channel and which are never sent again (connect-only calls, a call
// the upstream may be running, a call its client stopped). The breaker and the channel order: circuit-breaker.test.ts.
import { describe, expect, it } from 'vitest';
import { dashscopeError } from '../../src/adapters/dashscope/errors.ts';
import { klingError } from '../../src/adapters/kling/errors.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';
import { isRetryable, withFailover, type AttemptSink } from '../../src/routing/failover.ts';
import { testChannel as ch } from '../support/channels.ts';

const noSleep = async () => undefined;

describe('failover', () => {
  it('fails over to the next channel on a connect failure, even for connect-only calls', async () => {
    const seen: string[] = [];
    const r = await withFailover(
      [ch('a', 2), ch('b', 1)],
      new CircuitBreakers(),
      async (c) => {
        seen.push(c.id);
        if (c.id === 'a') throw new GatewayError('upstream_unreachable', 'refused');
        return c.id;
      },
      { policy: 'connect-only', sleep: noSleep },
    );
    expect(r).toBe('b');
    expect(seen).toEqual(['a', 'b']);
  });

  it('never repeats a connect-only call after a reset once the request was sent', async () => {
    let calls = 0;
    await expect(
      withFailover(
        [ch('a', 2), ch('b', 1)],
        new CircuitBreakers(),
        async () => {
          calls++;
          throw new GatewayError('upstream_error', 'closed after send');
        },
        { policy: 'connect-only', sleep: noSleep },
      ),
    ).rejects.toMatchObject({ code: 'upstream_error' });
    expect(calls).toBe(1);
  });

  it('a connect-only call refused with 429 moves to another account, but is not sent to the same one again', async () => {
    const seen: string[] = [];
    const r = await withFailover(
      [ch('a', 2), ch('b', 1)],
      new CircuitBreakers(),
      async (c) => {
        seen.push(c.id);
        if (c.id === 'a') throw new GatewayError('upstream_rate_limited', '429');
        return c.id;
      },
      { policy: 'connect-only', sleep: noSleep },
    );
    expect(r).toBe('b');
    expect(seen).toEqual(['a', 'b']);
    let calls = 0;
    await expect(
      withFailover(
        [ch('only')],
        new CircuitBreakers(),
        async () => {
          calls++;
          throw new GatewayError('upstream_rate_limited', '429');
        },
        { policy: 'connect-only', sleep: noSleep },
      ),
    ).rejects.toMatchObject({ code: 'upstream_rate_limited' });
    expect(calls).toBe(1);
  });

  it('an account that refuses any call (arrears, key refused) moves the call to another account under either policy, counted against the channel, never asked twice', async () => {
    for (const policy of ['safe', 'connect-only'] as const) {
      const seen: string[] = [];
      const breakers = new CircuitBreakers();
      const r = await withFailover(
        [ch('a', 2), ch('b', 1)],
        breakers,
        async (c) => {
          seen.push(c.id);
          if (c.id === 'a')
            throw dashscopeError(400, {
              code: 'Arrearage',
              message: 'Access denied, please make sure your account is in good standing.',
            });
          return c.id;
        },
        { policy, sleep: noSleep },
      );
      expect(r).toBe('b');
      expect(seen).toEqual(['a', 'b']);
      for (let i = 0; i < 4; i++) breakers.failure('a', 'x');
      expect(breakers.isOpen('a')).toBe(true); // the refusal counted as the fifth failure
    }
    const e = dashscopeError(400, { code: 'Arrearage', message: 'in arrears' });
    expect(e).toMatchObject({ code: 'upstream_permission_denied', accountRefused: true });
    expect(e.message).toContain('balance');
    expect(klingError(429, { code: 1101, message: 'arrears' }).accountRefused).toBe(true);
    expect(klingError(401, { code: 1004, message: 'expired' }).accountRefused).toBe(true);
    expect(klingError(400, { code: 1201, message: 'bad' }).accountRefused).toBe(false);
    // An ordinary bad request is still the client's: no failover.
    let calls = 0;
    await expect(
      withFailover(
        [ch('a', 2), ch('b', 1)],
        new CircuitBreakers(),
        async () => {
          calls++;
          throw dashscopeError(400, { code: 'InvalidParameter', message: 'bad' });
        },
        { policy: 'safe', sleep: noSleep },
      ),
    ).rejects.toMatchObject({ code: 'upstream_invalid_request' });
    expect(calls).toBe(1);
  });

  it('never repeats a connect-only call after a timeout (the upstream may have accepted it)', async () => {
    let calls = 0;
    await expect(
      withFailover(
        [ch('a', 2), ch('b', 1)],
        new CircuitBreakers(),
        async () => {
          calls++;
          throw new GatewayError('upstream_timeout', 'slow');
        },
        { policy: 'connect-only', sleep: noSleep },
      ),
    ).rejects.toMatchObject({ code: 'upstream_timeout' });
    expect(calls).toBe(1);
  });

  it('retries safe calls on 5xx/429/timeouts and gives up after maxAttempts', async () => {
    let calls = 0;
    await expect(
      withFailover(
        [ch('a')],
        new CircuitBreakers(),
        async () => {
          calls++;
          throw new GatewayError('upstream_rate_limited', '429');
        },
        { policy: 'safe', maxAttempts: 3, sleep: noSleep },
      ),
    ).rejects.toMatchObject({ code: 'upstream_rate_limited' });
    expect(calls).toBe(3);
  });

  it('does not retry client errors', async () => {
    let calls = 0;
    await expect(
      withFailover(
        [ch('a'), ch('b')],
        new CircuitBreakers(),
        async () => {
          calls++;
          throw new GatewayError('upstream_invalid_request', 'bad');
        },
        { policy: 'safe', sleep: noSleep },
      ),
    ).rejects.toMatchObject({ code: 'upstream_invalid_request' });
    expect(calls).toBe(1);
  });

  it('an attempt that throws before returning its promise is a failed attempt like any other: recorded, backed off, failed over', async () => {
    const sink: AttemptSink = { state: { channelId: null, attempts: null }, log: { warn: () => undefined } };
    const pauses: number[] = [];
    const r = await withFailover(
      [ch('a', 2), ch('b', 1)],
      new CircuitBreakers(),
      (c) => {
        if (c.id === 'a') throw new GatewayError('upstream_unavailable', 'down');
        return Promise.resolve(c.id);
      },
      { policy: 'safe', backoffMs: 40, sleep: async (ms) => void pauses.push(ms) },
      sink,
    );
    expect(r).toBe('b');
    expect(pauses).toHaveLength(1);
    expect(pauses[0]).toBeGreaterThanOrEqual(20);
    expect(pauses[0]).toBeLessThanOrEqual(40);
    expect(sink.state.attempts?.map((a) => [a.channel_id, a.outcome, a.error_code])).toEqual([
      ['a', 'error', 'upstream_unavailable'],
      ['b', 'ok', null],
    ]);
    expect(sink.state.channelId).toBe('b');
  });

  it('skips a channel whose circuit is open, and ends with the last error when every attempt failed', async () => {
    const breakers = new CircuitBreakers({ threshold: 1, cooldownMs: 60_000 });
    breakers.failure('b', 'upstream_error');
    const seen: string[] = [];
    await expect(
      withFailover(
        [ch('a', 3), ch('b', 2), ch('c', 1)],
        breakers,
        async (c) => {
          seen.push(c.id);
          throw new GatewayError('upstream_error', `failed on ${c.id}`);
        },
        { policy: 'safe', maxAttempts: 3, sleep: noSleep },
      ),
    ).rejects.toMatchObject({ code: 'upstream_error', message: 'failed on c' });
    expect(seen).toEqual(['a', 'c']);
  });

  it('no channel → no_channel', async () => {
    await expect(withFailover([], new CircuitBreakers(), async () => 1, { policy: 'safe' })).rejects.toMatchObject({
      code: 'no_channel',
    });
  });
});

describe('isRetryable: never repeat a call the upstream may be running', () => {
  it('a declining answer (5xx, 429) is retried under safe; a timeout or cut after sending is not, under either policy', () => {
    expect(isRetryable(new GatewayError('upstream_error', 'HTTP 500'), 'safe')).toBe(true);
    expect(isRetryable(new GatewayError('upstream_rate_limited', '429'), 'safe')).toBe(true);
    expect(isRetryable(new GatewayError('upstream_timeout', 'HTTP 504 answer'), 'safe')).toBe(true);
    for (const policy of ['safe', 'connect-only'] as const) {
      expect(isRetryable(new GatewayError('upstream_timeout', 'no answer', { mayHaveRun: true }), policy)).toBe(false);
      expect(isRetryable(new GatewayError('upstream_error', 'reset', { mayHaveRun: true }), policy)).toBe(false);
      expect(isRetryable(new GatewayError('upstream_unreachable', 'refused'), policy)).toBe(true);
    }
  });
});

describe('a call its client stopped', () => {
  it('is neither counted against the channel nor sent again, and its attempt is recorded as client_closed', async () => {
    const breakers = new CircuitBreakers();
    let calls = 0;
    for (let i = 0; i < 10; i++) {
      await expect(
        withFailover(
          [ch('a', 2), ch('b', 1)],
          breakers,
          async () => {
            calls++;
            throw new GatewayError('upstream_error', 'aborted', { mayHaveRun: true, callerAborted: true });
          },
          { policy: 'safe', sleep: noSleep },
        ),
      ).rejects.toMatchObject({ callerAborted: true });
    }
    expect(calls).toBe(10);
    expect(breakers.view('a').state).toBe('closed');
    // The same failure from the upstream's side does count.
    for (let i = 0; i < 10; i++)
      await withFailover(
        [ch('a')],
        breakers,
        async () => {
          throw new GatewayError('upstream_error', 'cut');
        },
        { policy: 'connect-only', sleep: noSleep },
      ).catch(() => undefined);
    expect(breakers.view('a').state).toBe('open');
  });
});
