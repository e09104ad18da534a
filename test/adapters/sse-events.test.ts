// Upstream SSE parsing is linear in a line's length however the line is cut, and a line (or unfinished event) past
// the limit breaks the stream with upstream_error. The attack: one newline-free line fed in ordinary reads.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { chatStreamCore, type ChatStreamState } from '../../src/adapters/dashscope/compat-chat-stream.ts';
import { pipeChatStream } from '../../src/adapters/dashscope/compat-chat-pipe.ts';
import { chatUsage } from '../../src/adapters/dashscope/compat-chat.ts';
import { SseParser, sseEvents } from '../../src/adapters/sse-events.ts';
import type { BodyConsumer } from '../../src/adapters/http-stream.ts';
import { isGatewayError } from '../../src/errors/gateway-error.ts';

const MiB = 1024 * 1024;
const READ = 64 * 1024;
const BIG_LIMIT = 64 * MiB;

/** One read of an upstream body, reused: the parsers keep no reference past the line's end. */
const read = Buffer.alloc(READ, 'x').toString('latin1');

function feedGeneric(lineBytes: number): number {
  const p = new SseParser(BIG_LIMIT);
  p.push('data: ');
  for (let n = 0; n < lineBytes; n += READ) p.push(read);
  return p.push('\n\n').length;
}

function feedChat(lineBytes: number): number {
  const st: ChatStreamState = { usage: null, produced: 0, rid: null, done: false };
  const core = chatStreamCore(
    { upstreamModel: 'a', publicModel: 'b', clientWantsUsage: true, chatUsage, lineLimit: BIG_LIMIT },
    st,
  );
  core.push('data: {"c":"');
  for (let n = 0; n < lineBytes; n += READ) core.push(read);
  core.push('"}\n\n');
  return core.take().length;
}

setFlagsFromString('--expose-gc');
/** A full collection on demand, so the garbage of one run is not collected (and counted) in the next. */
const collect = runInNewContext('gc') as () => void;

/** CPU time (user + system, µs) of one run. */
function cpuOf(run: () => number): number {
  collect();
  const before = process.cpuUsage();
  expect(run()).toBeGreaterThan(0);
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/**
 * The least CPU each size took over a few interleaved runs: CPU time, not wall time, so other processes on the host
 * do not count, and the least of several so a collection that happened to fall in one run does not either.
 */
function leastCpu(feed: (bytes: number) => number, sizes: number[]): number[] {
  const best = sizes.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < 5; round++)
    for (const [i, s] of sizes.entries())
      best[i] = Math.min(
        best[i]!,
        cpuOf(() => feed(s)),
      );
  return best;
}

describe("SSE parsing: linear in a line's length", () => {
  for (const [name, feed] of [
    ['generic parser', feedGeneric],
    ['chat stream core', feedChat],
  ] as const) {
    it(`${name}: a 32 MiB line costs at most 5× the CPU of an 8 MiB one (linear: 4×; quadratic: 16×)`, () => {
      feed(MiB); // warm up
      // A host busy with other work still disturbs CPU time a little (caches): a few attempts, the best counts.
      // A quadratic parser is far past 5× in every one.
      let ratio = Number.POSITIVE_INFINITY;
      for (let attempt = 0; attempt < 3 && ratio >= 5; attempt++) {
        const [small, large] = leastCpu(feed, [8 * MiB, 32 * MiB]) as [number, number];
        ratio = Math.min(ratio, large / small);
      }
      expect(ratio).toBeLessThan(5);
    }, 180_000); // CPU time is measured; on a busy host the wall time it takes is several times that
  }
});

describe('SSE parsing: a line past the limit breaks the stream', () => {
  it('generic parser: a newline-free line over the limit → upstream_error', () => {
    const p = new SseParser(1000);
    p.push('data: ');
    expect(() => {
      for (let i = 0; i < 20; i++) p.push('y'.repeat(100));
    }).toThrow(expect.objectContaining({ code: 'upstream_error' }));
  });

  it('generic parser: many data lines making one event over the limit → upstream_error', () => {
    const p = new SseParser(1000);
    expect(() => {
      for (let i = 0; i < 20; i++) p.push(`data: ${'y'.repeat(100)}\n`);
    }).toThrow(expect.objectContaining({ code: 'upstream_error' }));
  });

  it('generic parser: lines within the limit still parse, whatever the cut', () => {
    const p = new SseParser(1000);
    const text = `event: e\ndata: ${'z'.repeat(900)}\r\n\r\ndata: [DONE]\n\n`;
    const out = [];
    for (let i = 0; i < text.length; i += 7) out.push(...p.push(text.slice(i, i + 7)));
    expect(out.map((e) => [e.event, e.data.length])).toEqual([
      ['e', 900],
      [null, 6],
    ]);
  });

  it('async form: the upstream iteration stops and the error is upstream_error', async () => {
    let reads = 0;
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from('data: ');
      while (reads < 200) {
        reads++;
        yield Buffer.alloc(100, 'q');
      }
    }
    const err = await (async () => {
      for await (const _ of sseEvents(body(), 1000)) void _;
    })().catch((e: unknown) => e);
    expect(isGatewayError(err) && err.code).toBe('upstream_error');
    expect(reads).toBeLessThan(15);
  });

  it('chat stream: an event past the limit ends the sink with upstream_error and aborts the upstream, frames before it delivered', () => {
    const st: ChatStreamState = { usage: null, produced: 0, rid: null, done: false };
    const core = chatStreamCore(
      { upstreamModel: 'a', publicModel: 'b', clientWantsUsage: true, chatUsage, lineLimit: 1000 },
      st,
    );
    let consumer: BodyConsumer | null = null;
    let aborted = false;
    const written: string[] = [];
    let ended: unknown = 'not ended';
    pipeChatStream(
      {
        push(c) {
          consumer = c;
          return { resume() {}, abort: () => void (aborted = true) };
        },
      },
      core,
      { write: (f) => written.push(f) > 0, end: (e) => void (ended = e) },
    );
    const c = consumer as unknown as BodyConsumer;
    c.data(Buffer.from('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"x":"'));
    for (let i = 0; i < 20 && !aborted; i++) c.data(Buffer.alloc(100, 'w'));
    expect(aborted).toBe(true);
    expect(isGatewayError(ended) && ended.code).toBe('upstream_error');
    expect(written.join('')).toContain('"content":"hi"');
  });
});
