// completeText's order: the charge is made before the answer is handed out, so a charge that cannot be made fails
// the call with an error instead of delivering an answer nobody was billed for.
import { describe, expect, it, vi } from 'vitest';
import type { CompleteResult } from '../../src/adapters/types.ts';
import type { ModelEntry, ResolvedModel } from '../../src/catalogue/types.ts';
import { completeText, type TextCall, type TextDeps } from '../../src/core/text.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { newRequestState } from '../../src/http/front/rules.ts';
import type { Channel } from '../../src/routing/channel-registry.ts';

const channel: Channel = {
  id: 'ch_1',
  name: 'a',
  kind: 'dashscope',
  baseUrl: 'http://u',
  keys: { apiKey: 'sk-x' },
  models: null,
  priority: 0,
  weight: 1,
  upstreamAccount: null,
  taskSlots: null,
  modelLimits: null,
};
const model: ResolvedModel = {
  entry: { id: 'm', upstream: 'dashscope' } as ModelEntry,
  publicName: 'm',
  upstreamModel: 'm',
  billingModel: 'm',
};
const answer: CompleteResult = {
  body: '{"ok":true}',
  usage: { kind: 'tokens', inputTokens: 3, outputTokens: 4 },
  upstreamRequestId: null,
};

function setup(charge: () => number) {
  const deps = {
    channels: { forModel: () => [channel], markNotEntitled: () => undefined },
    breakers: { allow: () => true, isOpen: () => false, success: () => undefined, failure: () => undefined },
    meter: { chargeSyncDeferred: vi.fn(charge), chargesBehind: () => undefined, atBound: new Set<string>() },
  } as unknown as TextDeps;
  const state = newRequestState();
  state.principal = {
    tokenId: 'tok_1',
    name: 't',
    models: null,
    quota: null,
    rpmLimit: null,
    tpmLimit: null,
    concurrencyLimit: null,
    billing: null,
  };
  const call: TextCall = { id: 'req_1', state, body: {}, log: { info: vi.fn(), warn: vi.fn(), error: vi.fn() } };
  return { deps, call, written: vi.fn() };
}

describe('completeText', () => {
  it('charges, then answers', async () => {
    const { deps, call, written } = setup(() => 7);
    await completeText(deps, call, model, async () => answer, written);
    expect(call.state.amount).toBe(7);
    expect(call.state.usage).toEqual({ input_tokens: 3, output_tokens: 4 });
    expect(written).toHaveBeenCalledWith('{"ok":true}');
  });

  it("while the charges' writer is behind, the answer waits until the queue has caught up with its charge", async () => {
    const { deps, call, written } = setup(() => 7);
    let caughtUp: () => void = () => undefined;
    (deps.meter as { chargesBehind: () => Promise<void> | undefined }).chargesBehind = () =>
      new Promise<void>((r) => (caughtUp = r));
    const done = completeText(deps, call, model, async () => answer, written);
    await new Promise((r) => setImmediate(r));
    expect(written).not.toHaveBeenCalled();
    caughtUp();
    await done;
    expect(written).toHaveBeenCalledWith('{"ok":true}');
  });

  it('a charge that cannot be made fails the call before anything is answered', async () => {
    const { deps, call, written } = setup(() => {
      throw new GatewayError('internal_error', 'metering: no price');
    });
    await expect(completeText(deps, call, model, async () => answer, written)).rejects.toMatchObject({
      code: 'internal_error',
    });
    expect(written).not.toHaveBeenCalled();
  });

  it('no usage from the upstream: charged by the estimate and marked estimated', async () => {
    const { deps, call, written } = setup(() => 1);
    const noUsage: CompleteResult = {
      body: '{"choices":[{"message":{"content":"hi"}}]}',
      usage: null,
      upstreamRequestId: null,
    };
    await completeText(
      deps,
      { ...call, body: { messages: [{ role: 'user', content: 'x'.repeat(40) }] } },
      model,
      async () => noUsage,
      written,
    );
    expect(call.state.usage).toEqual({ input_tokens: 10, output_tokens: 1, estimated: true });
    expect(written).toHaveBeenCalled();
  });

  it('no usage: the output estimate counts the text each API produced (content, reasoning, tool arguments), not roles, ids or names', async () => {
    const cases: Array<[string, number]> = [
      [
        '{"id":"c1","choices":[{"message":{"role":"assistant","content":"12345678","reasoning_content":"abcd"},"finish_reason":"stop"}]}',
        3,
      ],
      [
        '{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]}}]}',
        4,
      ],
      [
        '{"id":"r1","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"123456789"}]}]}',
        3,
      ],
      [
        '{"id":"m1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"abcd"},{"type":"text","text":"efgh"}]}',
        2,
      ],
      ['{"object":"list","data":[{"object":"embedding","embedding":[0.1,0.2]}]}', 0],
    ];
    for (const [body, output] of cases) {
      const { deps, call, written } = setup(() => 1);
      await completeText(deps, call, model, async () => ({ body, usage: null, upstreamRequestId: null }), written);
      expect(call.state.usage, body).toMatchObject({ output_tokens: output, estimated: true });
    }
  });

  it('no result and no usage: an upstream error, nothing charged, nothing answered', async () => {
    for (const body of ['{"choices":[]}', '{"object":"list","data":[]}', '{"output":[]}', '{}', 'not json']) {
      const { deps, call, written } = setup(() => 1);
      await expect(
        completeText(deps, call, model, async () => ({ body, usage: null, upstreamRequestId: 'up-9' }), written),
      ).rejects.toMatchObject({
        code: 'upstream_error',
        upstreamRequestId: 'up-9',
      });
      expect(deps.meter.chargeSyncDeferred).not.toHaveBeenCalled();
      expect(written).not.toHaveBeenCalled();
    }
  });
});
