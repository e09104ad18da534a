import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatStreamTransformer, type ChatStreamState } from '../../../src/adapters/dashscope/compat-chat-stream.ts';
import { chatUsage } from '../../../src/adapters/dashscope/compat-chat.ts';
import { objectAfterKey, renameModel, stringValueLength } from '../../../src/adapters/json-scan.ts';
import { sseEvents } from '../../../src/adapters/sse-events.ts';
import { isGatewayError } from '../../../src/errors/gateway-error.ts';
import type { TokenUsage } from '../../../src/adapters/types.ts';

const UP = 'qwen3.7-plus';
const PUB = 'qwx3.7-plus';

async function* chunks(parts: string[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield Buffer.from(p, 'utf8');
}

/** The straightforward per-event reference: generic SSE parse, then one decision per event. */
async function reference(parts: string[], wantsUsage: boolean) {
  let usage: TokenUsage | null = null;
  let produced = 0;
  let done = false;
  let out = '';
  let error: string | null = null;
  try {
    for await (const ev of sseEvents(chunks(parts))) {
      let d = ev.data;
      if (d === '[DONE]') {
        done = true;
        out += 'data: [DONE]\n\n';
        continue;
      }
      if (d.startsWith('{"error"')) throw new Error('stream error event');
      if (d.includes('"usage":{') || d.includes('"usage": {')) {
        const u = objectAfterKey(d, 'usage');
        if (u) usage = chatUsage(u);
        if (!wantsUsage) {
          const parsed = JSON.parse(d) as Record<string, unknown>;
          if (Array.isArray(parsed.choices) && parsed.choices.length === 0) continue;
          parsed.usage = null;
          d = JSON.stringify(parsed);
        }
      }
      produced +=
        stringValueLength(d, 'content') +
        (d.includes('"reasoning_content":"') ? stringValueLength(d, 'reasoning_content') : 0) +
        stringValueLength(d, 'arguments');
      out += `data: ${renameModel(d, UP, PUB)}\n\n`;
    }
    if (!done) throw new Error('incomplete');
  } catch (e) {
    error = (e as Error).message === 'incomplete' ? 'incomplete' : 'error';
  }
  return { out, usage, produced, error };
}

async function actual(parts: string[], wantsUsage: boolean) {
  const st: ChatStreamState = { usage: null, produced: 0, rid: null, done: false };
  const frames = chatStreamTransformer(
    { upstreamModel: UP, publicModel: PUB, clientWantsUsage: wantsUsage, chatUsage },
    st,
  )(chunks(parts));
  let out = '';
  let error: string | null = null;
  try {
    for await (const f of frames) out += f;
  } catch (e) {
    expect(isGatewayError(e)).toBe(true);
    error = isGatewayError(e) && e.message.includes('ended before') ? 'incomplete' : 'error';
  }
  return { out, usage: st.usage, produced: st.produced, error, rid: st.rid };
}

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    model: UP,
    choices: [{ index: 0, delta, finish_reason: null }],
    usage: null,
    ...extra,
  });
const usageChunk = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  model: UP,
  choices: [],
  usage: { prompt_tokens: 11, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 3 } },
});

/** Cut a string into pieces at the given fractions (chunk boundaries anywhere, inside UTF-8 sequences too). */
function cut(s: string, at: number[]): string[] {
  const bytes = Buffer.from(s, 'utf8');
  const points = [...new Set(at.map((f) => Math.floor(f * bytes.length)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    if (p > prev) parts.push(bytes.subarray(prev, p).toString('latin1'));
    prev = p;
  }
  return parts;
}

async function compare(stream: string, at: number[], wantsUsage: boolean) {
  // Pieces are latin1-encoded byte runs, so a cut inside a UTF-8 sequence is exercised byte-exactly.
  const parts = cut(stream, at);
  const asBytes = async function* () {
    for (const p of parts) yield Buffer.from(p, 'latin1');
  };
  const refParts: string[] = [];
  for await (const b of asBytes()) refParts.push(b.toString('latin1'));
  const ref = await reference([Buffer.from(refParts.join(''), 'latin1').toString('utf8')], wantsUsage);
  const st: ChatStreamState = { usage: null, produced: 0, rid: null, done: false };
  const frames = chatStreamTransformer(
    { upstreamModel: UP, publicModel: PUB, clientWantsUsage: wantsUsage, chatUsage },
    st,
  )(asBytes());
  let out = '';
  let error: string | null = null;
  try {
    for await (const f of frames) out += f;
  } catch (e) {
    error = isGatewayError(e) && e.message.includes('ended before') ? 'incomplete' : 'error';
  }
  expect({ out, usage: st.usage, produced: st.produced, error }).toEqual(ref);
}

describe('compatible-mode chat stream transformer', () => {
  it('renames the model, counts delta text, drops the usage chunk the client did not ask for, keeps [DONE]', async () => {
    const s = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello "world" ' }),
      chunk({ content: 'é€😀 [DONE] {"error"' }),
      chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      usageChunk,
      '[DONE]',
    ]
      .map((d) => `data: ${d}\n\n`)
      .join('');
    const a = await actual([s], false);
    expect(a.error).toBeNull();
    expect(a.out).not.toContain(UP);
    expect(a.out.match(/"model":"qwx3\.7-plus"/g)).toHaveLength(4);
    expect(a.out).not.toContain('"usage":{');
    expect(a.out.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(a.usage).toEqual({ kind: 'tokens', inputTokens: 11, outputTokens: 7, cachedTokens: 3 });
    expect(a.produced).toBe('Hello \\"world\\" '.length + 'é€😀 [DONE] {\\"error\\"'.length);
    expect(a.rid).toBe('chatcmpl-1');
    expect(a).toMatchObject(await reference([s], false));
    // The client that asked gets the usage chunk.
    const b = await actual([s], true);
    expect(b.out).toContain('"usage":{"prompt_tokens":11');
  });

  it("counts a tool call's arguments as output, not its name or id", async () => {
    const s = [
      chunk({
        role: 'assistant',
        content: '',
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
      '[DONE]',
    ]
      .map((d) => `data: ${d}\n\n`)
      .join('');
    const a = await actual([s], false);
    expect(a.error).toBeNull();
    expect(a.usage).toBeNull();
    expect(a.produced).toBe(JSON.stringify('{"city":"Paris"}').length - 2);
  });

  it('drops the usage-only chunk the client did not ask for also when the upstream spaces its JSON', async () => {
    const spaced = `{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "${UP}", "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}`;
    const s = [chunk({ content: 'hi' }), spaced, '[DONE]'].map((d) => `data: ${d}\n\n`).join('');
    const a = await actual([s], false);
    expect(a.error).toBeNull();
    expect(a.out).not.toContain('"choices": []');
    expect(a.out).not.toContain('"usage": {');
    expect(a).toMatchObject(await reference([s], false));
    expect(a.usage).toEqual({ kind: 'tokens', inputTokens: 11, outputTokens: 7 });
    const b = await actual([s], true);
    expect(b.out).toContain('"choices": []');
  });

  it('an error event mid-block: the frames before it are delivered, then the stream fails', async () => {
    const s = `data: ${chunk({ content: 'one ' })}\n\ndata: ${chunk({ content: 'two ' })}\n\ndata: {"error":{"message":"boom","code":"x"}}\n\ndata: ${chunk({ content: 'never' })}\n\n`;
    const a = await actual([s], false);
    expect(a.error).toBe('error');
    expect(a.out).toContain('one ');
    expect(a.out).toContain('two ');
    expect(a.out).not.toContain('never');
  });

  it('a stream without [DONE] fails as incomplete after delivering what came', async () => {
    const a = await actual([`data: ${chunk({ content: 'partial' })}\n\n`], false);
    expect(a.error).toBe('incomplete');
    expect(a.out).toContain('partial');
  });

  it('matches the per-event reference for any chunking, line-end style and SSE form', async () => {
    const content = fc.string({
      unit: fc.constantFrom(
        'a',
        ' ',
        '"',
        '\\',
        'é',
        '😀',
        '\n',
        '[DONE]',
        '"usage":{',
        'usage":',
        'content":"',
        'data: ',
        '\r',
      ),
    });
    const eventArb = fc.oneof(
      content.map((c) => chunk({ content: c })),
      content.map((c) => chunk({ reasoning_content: c })),
      // Keys that merely end like the counted ones are not delta text.
      content.map((c) => chunk({ extra_content: c, content: c })),
      content.map((c) => chunk({ tool_calls: [{ index: 0, function: { arguments: c } }] })),
      content.map((c) =>
        chunk({ tool_calls: [{ index: 0, function: { name: 'f', extra_arguments: c, arguments: c } }] }),
      ),
      fc.constant(usageChunk),
      fc.constant(usageChunk.replace('"usage":{', '"usage": {')),
      fc.constant(chunk({ content: 'n' }, { usage: null, note: { usage: 1 } })),
      fc.constant(chunk({ content: 'u' }, { usage: { prompt_tokens: 2, completion_tokens: 1 } })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { maxLength: 8 }),
        fc.boolean(),
        fc.constantFrom('\n', '\r\n'),
        fc.constantFrom('data: ', 'data:'),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
        fc.boolean(),
        async (events, done, eol, prefix, comment, finalBlank, at, wantsUsage) => {
          let s = comment ? `:HTTP_STATUS/200${eol}` : '';
          for (const e of events) s += `${prefix}${e}${eol}${eol}`;
          if (done) s += `${prefix}[DONE]${finalBlank ? `${eol}${eol}` : ''}`;
          await compare(s, at, wantsUsage);
        },
      ),
      { numRuns: 300 },
    );
  });
});
