// Lists the gateway passes on item by item — tools, response input items and their parts, a messages-style system
// prompt, embedding dimensions — are checked for their shape first: a null item or a wrong type is the client's 400
// in the family's shape, with the request id, and never reaches the upstream (it answered a 502 with its own text).
import { describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();
const msgs = [{ role: 'user', content: 'hi' }];

describe('item shapes checked before the upstream', () => {
  it.each([
    ['/v1/chat/completions', { model: 'qwx3.7-plus', messages: msgs, tools: [null] }, 'tools'],
    ['/v1/chat/completions', { model: 'qwx3.7-plus', messages: msgs, tools: [{ function: { name: 'f' } }] }, 'tools'],
    ['/v1/chat/completions', { model: 'qwx3.7-plus', messages: msgs, tools: 'f' }, 'tools'],
    ['/v1/responses', { model: 'qwx3.7-plus', input: [null] }, 'input'],
    ['/v1/responses', { model: 'qwx3.7-plus', input: [{ role: 'user', content: [null] }] }, 'input'],
    ['/v1/responses', { model: 'qwx3.7-plus', input: 'hi', tools: [7] }, 'tools'],
    ['/v1/messages', { model: 'qwx3.7-plus', max_tokens: 16, messages: msgs, system: [null] }, 'system'],
    ['/v1/messages', { model: 'qwx3.7-plus', max_tokens: 16, messages: msgs, system: 5 }, 'system'],
    ['/v1/messages', { model: 'qwx3.7-plus', max_tokens: 16, messages: msgs, tools: [null] }, 'tools'],
    ['/v1/embeddings', { model: 'text-embedding-v4', input: 'hi', dimensions: { toString: 1 } }, 'dimensions'],
    ['/v1/embeddings', { model: 'text-embedding-v4', input: 'hi', dimensions: 0 }, 'dimensions'],
    ['/v1/embeddings', { model: 'text-embedding-v4', input: 'hi', dimensions: 1.5 }, 'dimensions'],
  ])('%s with %j: 400 invalid_parameter naming %s, nothing sent upstream', async (path, json, param) => {
    const before = t.h.sim.requestsTo('/').length;
    const body = await expectB(
      await t.h.fetch(path, { method: 'POST', token: t.token, json }),
      400,
      'invalid_parameter',
    );
    expect(body.error.param).toBe(param);
    expect(t.h.sim.requestsTo('/').length).toBe(before);
  });

  it('well-formed lists still pass: OpenAI-style and Anthropic-style tools, a system of text blocks, dimensions', async () => {
    const fn = { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } };
    expect(
      (
        await t.h.fetch('/v1/chat/completions', {
          method: 'POST',
          token: t.token,
          json: { model: 'qwx3.7-plus', messages: msgs, tools: [fn] },
        })
      ).status,
    ).toBe(200);
    const anthropicTool = { name: 'now', description: 'the time', input_schema: { type: 'object', properties: {} } };
    const m = await t.h.fetch('/v1/messages', {
      method: 'POST',
      token: t.token,
      json: {
        model: 'qwx3.7-plus',
        max_tokens: 16,
        messages: msgs,
        system: [{ type: 'text', text: 'be terse' }],
        tools: [anthropicTool],
      },
    });
    expect(m.status).toBe(200);
    expect(
      (
        await t.h.fetch('/v1/responses', {
          method: 'POST',
          token: t.token,
          json: { model: 'qwx3.7-plus', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.h.fetch('/v1/embeddings', {
          method: 'POST',
          token: t.token,
          json: { model: 'text-embedding-v4', input: 'hi', dimensions: 512 },
        })
      ).status,
    ).toBe(200);
  });
});
