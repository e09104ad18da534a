// What goes upstream on the text routes: the client's own JSON text with only the model renamed — unless a key
// repeats somewhere in it, when the body JSON.parse kept (and the gateway validated) is serialised instead.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();

/** POST `text` as it is; the one upstream request it caused, as the simulator received it. */
async function sentFor(
  path: string,
  upstreamPath: string,
  text: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const before = t.h.sim.requestsTo(upstreamPath).length;
  const r = await t.h.fetch(path, {
    method: 'POST',
    token: t.token,
    headers: { 'content-type': 'application/json', ...headers },
    body: text,
  });
  expect(r.status).toBe(200);
  await r.arrayBuffer();
  const sent = t.h.sim.requestsTo(upstreamPath).slice(before);
  expect(sent).toHaveLength(1);
  return sent[0]!.text!;
}

const cases = [
  {
    route: '/v1/chat/completions',
    upstream: '/compatible-mode/v1/chat/completions',
    members: '"messages": [ {"role": "user", "content": "hi \\"there\\""} ]',
    model: ['qwx3.7-plus', 'qwen3.7-plus'],
  },
  {
    route: '/v1/embeddings',
    upstream: '/compatible-mode/v1/embeddings',
    members: '"input" : [ "one", "two" ],\n "encoding_format": "float"',
    model: ['text-embedding-v4', 'text-embedding-v4'],
  },
  {
    route: '/v1/messages',
    upstream: '/apps/anthropic/v1/messages',
    members: '"max_tokens": 64, "messages": [ {"role": "user", "content": "hi"} ]',
    model: ['qwx3.7-plus', 'qwen3.7-plus'],
  },
  {
    route: '/v1/responses',
    upstream: '/compatible-mode/v1/responses',
    members: '"input": "hi",\t"temperature": 0.5',
    model: ['qwx3.7-plus', 'qwen3.7-plus'],
  },
];

describe('the body sent upstream', () => {
  for (const c of cases) {
    it(`${c.route}: the client's text byte for byte, only the model renamed`, async () => {
      const [pub, up] = c.model as [string, string];
      const text = `{ ${c.members},\n  "model" : "${pub}" }`;
      expect(await sentFor(c.route, c.upstream, text)).toBe(text.replace(`"${pub}"`, `"${up}"`));
    });

    it(`${c.route}: a repeated key goes up once, with the value that was validated`, async () => {
      const [pub, up] = c.model as [string, string];
      // A field of the route's API (messages has no `user`): an unknown one would be dropped.
      const key = c.route === '/v1/messages' ? 'service_tier' : 'user';
      const text = `{"model":"${pub}","${key}":"first",${c.members},"${key}":"second"}`;
      const sent = await sentFor(c.route, c.upstream, text);
      expect(sent).not.toContain('first');
      expect(JSON.parse(sent)).toEqual({ ...(JSON.parse(text) as object), model: up });
    });

    it(`${c.route}: a top-level field neither the API nor the upstream defines is dropped, the rest sent as validated`, async () => {
      const [pub, up] = c.model as [string, string];
      const text = `{"model":"${pub}",${c.members},"junk":[[{"a":[1]}],{"b":{}}]}`;
      const sent = await sentFor(c.route, c.upstream, text);
      const { junk: _, ...kept } = JSON.parse(text) as Record<string, unknown>;
      expect(JSON.parse(sent)).toEqual({ ...kept, model: up });
    });
  }

  it("a streamed chat asks the upstream for usage: the client's text with the model renamed and the option added", async () => {
    const text = '{"model":"qwx3.7-plus", "stream" : true,"messages":[{"role":"user","content":"x}"}] }\n';
    const sent = await sentFor('/v1/chat/completions', '/compatible-mode/v1/chat/completions', text);
    expect(sent).toBe(
      '{"model":"qwen3.7-plus", "stream" : true,"messages":[{"role":"user","content":"x}"}] ,"stream_options":{"include_usage":true}}\n',
    );
  });

  it('a streamed chat with its own stream_options, or a repeated key, is serialised with include_usage set', async () => {
    const own = await sentFor(
      '/v1/chat/completions',
      '/compatible-mode/v1/chat/completions',
      '{"model":"qwx3.7-plus","stream":true,"stream_options":{"include_usage":false},"messages":[{"role":"user","content":"x"}]}',
    );
    expect(JSON.parse(own)).toEqual({
      model: 'qwen3.7-plus',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'x' }],
    });
    const repeated = await sentFor(
      '/v1/chat/completions',
      '/compatible-mode/v1/chat/completions',
      '{"model":"qwx3.7-plus","user":"a","stream":true,"user":"b","messages":[{"role":"user","content":"x"}]}',
    );
    expect(JSON.parse(repeated)).toEqual({
      model: 'qwen3.7-plus',
      user: 'b',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(repeated).not.toContain('"a"');
  });
});
