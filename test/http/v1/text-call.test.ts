// sendComplete's order: the charge is made before the answer is written, so a charge that cannot be made fails the
// call with an error instead of delivering an answer nobody was billed for.
import { describe, expect, it, vi } from 'vitest';
import type { CompleteResult } from '../../../src/adapters/types.ts';
import type { ModelEntry } from '../../../src/catalogue/types.ts';
import { GatewayError } from '../../../src/errors/gateway-error.ts';
import type { AppDeps } from '../../../src/http/deps.ts';
import type { Exchange } from '../../../src/http/exchange.ts';
import { newRequestState } from '../../../src/http/pipeline.ts';
import { sendComplete, type Prepared } from '../../../src/http/routes/v1/text-call.ts';
import type { Channel } from '../../../src/routing/channel-registry.ts';

const channel: Channel = { id: 'ch_1', name: 'a', kind: 'dashscope', baseUrl: 'http://u', keys: { apiKey: 'sk-x' }, models: null, priority: 0, weight: 1 };
const prep: Prepared = { r: { entry: { id: 'm', upstream: 'dashscope' } as ModelEntry, publicName: 'm', upstreamModel: 'm', billingModel: 'm' }, tokenId: 'tok_1' };
const answer: CompleteResult = { body: '{"ok":true}', usage: { kind: 'tokens', inputTokens: 3, outputTokens: 4 }, upstreamRequestId: null };

function setup(charge: () => number) {
  const res = { headersSent: false, destroyed: false, writeHead: vi.fn(), end: vi.fn() };
  const deps = {
    channels: { forModel: () => [channel], markNotEntitled: () => undefined },
    breakers: { allow: () => true, isOpen: () => false, success: () => undefined, failure: () => undefined },
    meter: { chargeSyncDeferred: vi.fn(charge) },
  } as unknown as AppDeps;
  const ex = { id: 'req_1', state: newRequestState(), headers: {}, body: {}, res, log: { info: vi.fn(), warn: vi.fn(), error: vi.fn() } } as unknown as Exchange;
  return { deps, ex, res };
}

describe('sendComplete', () => {
  it('charges, then answers', async () => {
    const { deps, ex, res } = setup(() => 7);
    await sendComplete(deps, ex, prep, async () => answer);
    expect(ex.state.amount).toBe(7);
    expect(res.end).toHaveBeenCalledWith('{"ok":true}');
  });

  it('a charge that cannot be made fails the call before any byte is written', async () => {
    const { deps, ex, res } = setup(() => {
      throw new GatewayError('internal_error', 'metering: no price');
    });
    await expect(sendComplete(deps, ex, prep, async () => answer)).rejects.toMatchObject({ code: 'internal_error' });
    expect(res.writeHead).not.toHaveBeenCalled();
    expect(res.end).not.toHaveBeenCalled();
  });
});
