// The compatible-mode chat stream, upstream bytes → client SSE, handled a block at a time: every complete event
// that arrived in one upstream read is transformed together (model renamed, delta text counted) with one
// string operation each, and only the rare events that need a decision — the usage chunk, an error event,
// `[DONE]` — are cut out and handled one by one, sparing the per-event parse/slice/join (CPU and garbage) of a
// generic SSE parser on every chunk of every stream. The transform is synchronous (chatStreamCore): the SSE
// writer drives it straight from the upstream's reads (push), with no promise per chunk; the async-iterable form
// (chatStreamTransformer) wraps the same core.
// Anything not in the canonical `data: <json>\n\n` form (comments, `event:`/`id:` lines, multi-line data,
// `data:` without the space) goes through the generic parser instead, so behaviour does not depend on it.
import { GatewayError } from '../../errors/gateway-error.ts';
import { objectAfterKey } from '../json-scan.ts';
import { SSE_LINE_LIMIT, sseEventsOf, sseLineTooLong } from '../sse-events.ts';
import type { BodyConsumer, BodyFlow, UpstreamStreamResponse } from '../http-stream.ts';
import type { FrameFlow, FrameSink, TokenUsage } from '../types.ts';
import { dashscopeStreamError, firstString, streamBroke, withContractCacheFields } from './compat-chat-common.ts';

export interface ChatStreamState {
  usage: TokenUsage | null;
  produced: number;
  rid: string | null;
  done: boolean;
}

export interface ChatStreamOptions {
  upstreamModel: string;
  publicModel: string;
  clientWantsUsage: boolean;
  chatUsage: (u: Record<string, unknown>) => TokenUsage;
  /** The longest unfinished event held back (bytes); past it the stream breaks (upstream_error). */
  lineLimit?: number;
}

// An upstream that spaces its JSON (`"usage": {`) is recognised too, like the spaced model-name rename below.
const hasUsage = (d: string) => d.includes('"usage":{') || d.includes('"usage": {');

// Searches start from a letter, not from `"`: JSON text has a quote every few characters, and a search whose
// first character is a quote stops at each of them (V8 looks for the first character, then compares the rest).
// The character before a hit is checked after.

/** Position of the next `"usage":{` (or `"usage": {`) at or after `from`; -1 when none. */
function nextUsage(text: string, from: number): number {
  let i = text.indexOf('usage":', from + 1);
  while (i >= 0) {
    let j = i + 7;
    if (text.charCodeAt(j) === 32) j++;
    if (text.charCodeAt(i - 1) === 34 && text.charCodeAt(j) === 123) return i - 1;
    i = text.indexOf('usage":', j);
  }
  return -1;
}

/**
 * Characters of output in a run of chunks: every `"content":"…"` and `"reasoning_content":"…"` value, and every
 * tool call's `"arguments":"…"` (model output too: a stream that only calls a tool is not free when the upstream
 * reports no usage).
 */
function deltaChars(text: string): number {
  let total = 0;
  let at = text.indexOf('content":"');
  while (at >= 0) {
    const own = text.charCodeAt(at - 1) === 34 || (text.charCodeAt(at - 11) === 34 && text.startsWith('reasoning_', at - 10));
    const chars = stringChars(text, at + 10);
    if (own) total += chars;
    at = text.indexOf('content":"', stringEndAt);
  }
  at = text.indexOf('arguments":"');
  while (at >= 0) {
    const chars = stringChars(text, at + 12);
    if (text.charCodeAt(at - 1) === 34) total += chars;
    at = text.indexOf('arguments":"', stringEndAt);
  }
  return total;
}

/** Where the string stringChars last read ends (its closing quote): a variable, not an object per value. */
let stringEndAt = 0;

/**
 * The length of the JSON string whose text starts at `start`, as written (an escape as its characters); its end is
 * left in stringEndAt. The text is a byte string (one char per UTF-8 byte): a character is counted at its first
 * byte, in UTF-16 units as a decoded string has them (a four-byte sequence is two), continuation bytes not at all.
 */
function stringChars(text: string, start: number): number {
  let i = start;
  let wide = 0; // UTF-16 units minus bytes, for the non-ASCII characters
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) break;
    else if (c >= 0x80) wide += c < 0xc0 ? -1 : c >= 0xf0 ? 1 : 0;
  }
  stringEndAt = i;
  return i - start + wide;
}

// Buffer's own latin1 decoder (what toString('latin1') calls, minus its argument handling).
type Latin1Buffer = Buffer & { latin1Slice(start: number, end: number): string };

/** A byte string (one char per byte, as latin1 decodes) of a text's UTF-8 form, and back. */
export const bytesOf = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
export const textOf = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

/**
 * Every `"model":"<from>"` (or `"model": "<from>"`) in `text`, renamed. The search is for the name itself —
 * it starts with a letter, which JSON text holds far fewer of than quotes — and the key before it is checked after.
 */
export function renameModels(text: string, from: string, compact: string, spaced: string): string {
  let i = text.indexOf(from);
  if (i < 0) return text;
  let out = '';
  let done = 0; // text before this is in `out`
  while (i >= 0) {
    const end = i + from.length;
    if (text.charCodeAt(end) === 34 && text.charCodeAt(i - 1) === 34) {
      if (text.startsWith('"model":', i - 9) && i - 9 >= done) {
        out += text.slice(done, i - 9) + compact;
        done = end + 1;
      } else if (text.startsWith('"model": ', i - 10) && i - 10 >= done) {
        out += text.slice(done, i - 10) + spaced;
        done = end + 1;
      }
    }
    i = text.indexOf(from, end);
  }
  return done === 0 ? text : out + text.slice(done);
}

/**
 * The synchronous transform: upstream reads in, client frames out. It works on byte strings — each upstream read
 * decoded as latin1, one char per byte, and the frames written back the same way — so the bytes pass through
 * unchanged without a UTF-8 decode and re-encode of every chunk (every marker it looks for is ASCII); the few
 * texts it reads or rewrites (usage, error events, the id) are decoded for that.
 */
export interface ChatStreamCore {
  /**
   * One upstream read (bytes, or a byte string). The client frames it completes are appended to what take()
   * returns. Throws (a GatewayError) on an error event: the frames before it are there to take first.
   */
  push(chunk: Buffer | string): void;
  /** The upstream ended: the rest is decided. Throws if the stream was not complete (no `[DONE]`). */
  end(): void;
  /** The frames produced since the last take, as a byte string ('' when none). */
  take(): string;
}

/** The byte strings a rename looks for and writes, per model pair: the same few pairs on every stream. */
interface Renaming {
  from: string;
  compact: string;
  spaced: string;
}
const renamings = new Map<string, Map<string, Renaming>>();

function renamingOf(upstreamModel: string, publicModel: string): Renaming {
  let byPublic = renamings.get(upstreamModel);
  if (byPublic === undefined) {
    if (renamings.size >= 1000) renamings.clear(); // names come from the catalogue: a bound, not an eviction policy
    renamings.set(upstreamModel, (byPublic = new Map()));
  }
  let r = byPublic.get(publicModel);
  if (r === undefined) {
    r = { from: bytesOf(upstreamModel), compact: bytesOf(`"model":${JSON.stringify(publicModel)}`), spaced: bytesOf(`"model": ${JSON.stringify(publicModel)}`) };
    byPublic.set(publicModel, r);
  }
  return r;
}

export function chatStreamCore(o: ChatStreamOptions, st: ChatStreamState): ChatStreamCore {
  const rename = o.upstreamModel !== o.publicModel && o.upstreamModel !== '';
  const limit = o.lineLimit ?? SSE_LINE_LIMIT;
  const { from, compact, spaced } = renamingOf(o.upstreamModel, o.publicModel);

  /** Events without a special marker: count, note the id, rename — on the whole run of them at once. */
  function plain(text: string): string {
    if (st.rid === null) {
      const id = firstString(text, 'id');
      if (id !== null) st.rid = textOf(id);
    }
    st.produced += deltaChars(text);
    return rename ? renameModels(text, from, compact, spaced) : text;
  }

  /** One event's data (a byte string, a decision to make): the client frame, or '' to drop it. Throws on an error event. */
  function event(bytes: string): string {
    if (bytes === '[DONE]') {
      st.done = true;
      return 'data: [DONE]\n\n';
    }
    if (bytes.startsWith('{"error"')) throw dashscopeStreamError(textOf(bytes));
    if (!hasUsage(bytes)) return plain(`data: ${bytes}\n\n`);
    const text = textOf(bytes);
    let d = text;
    const u = objectAfterKey(d, 'usage');
    if (u) st.usage = o.chatUsage(u);
    if (o.clientWantsUsage && u) d = withContractCacheFields(d, u) ?? d;
    if (!o.clientWantsUsage) {
      // The client did not ask for usage: drop the usage-only chunk (empty choices, however it is spaced),
      // strip usage from any other. One parse per stream: only the chunk that carries usage gets here.
      const parsed = JSON.parse(d) as Record<string, unknown>;
      if (Array.isArray(parsed.choices) && parsed.choices.length === 0) return '';
      parsed.usage = null;
      d = JSON.stringify(parsed);
    }
    return plain(`data: ${d === text ? bytes : bytesOf(d)}\n\n`);
  }

  let out = '';

  /** Payload bounds [start, end) of each event when the block is all canonical `data: …\n\n`; else null. */
  function canonical(block: string): number[] | null {
    const bounds: number[] = [];
    let pos = 0;
    while (pos < block.length) {
      if (!block.startsWith('data: ', pos)) return null;
      const nl = block.indexOf('\n', pos);
      if (nl < 0 || block.charCodeAt(nl + 1) !== 10) return null;
      bounds.push(pos + 6, nl);
      pos = nl + 2;
    }
    return bounds;
  }

  /**
   * A block of complete events (ends with a blank line, LF line ends) → client frames, appended to `out` as they
   * are decided (so the frames before an error event still reach the client when it throws). Runs of ordinary
   * events are handled as one piece; an event that needs a decision — it carries usage, is an error event or is
   * `[DONE]` — is handled alone.
   */
  function block(text: string): void {
    const b = canonical(text);
    if (!b) return generic(text);
    let from = 0; // start of the events not emitted yet
    let usage = nextUsage(text, -1);
    for (let i = 0; i < b.length; i += 2) {
      const start = b[i]!;
      const end = b[i + 1]!;
      const carriesUsage = usage >= 0 && usage < end;
      if (!carriesUsage && !text.startsWith('{"error"', start) && !(end - start === 6 && text.startsWith('[DONE]', start))) continue;
      if (start - 6 > from) out += plain(text.slice(from, start - 6));
      out += event(text.slice(start, end));
      from = end + 2;
      if (carriesUsage) usage = nextUsage(text, end);
    }
    if (from === 0) out += plain(text);
    else if (from < text.length) out += plain(text.slice(from));
  }

  function generic(text: string): void {
    for (const ev of sseEventsOf(text, limit)) out += event(ev.data);
  }

  // The unfinished event, in the pieces it came in: joined once when its blank line arrives, so a long event
  // costs its length once, not once per read.
  let held: string[] = [];
  let heldLength = 0;
  let heldEndsLf = false;
  let pendingCr = false;

  function hold(s: string): void {
    held.push(s);
    heldLength += s.length;
    heldEndsLf = s.charCodeAt(s.length - 1) === 10;
    if (heldLength > limit) throw sseLineTooLong(limit);
  }

  return {
    push(chunk) {
      let s = typeof chunk === 'string' ? chunk : (chunk as Latin1Buffer).latin1Slice(0, chunk.length);
      if (pendingCr) {
        s = `\r${s}`;
        pendingCr = false;
      }
      if (s.includes('\r')) {
        // CRLF (or CR) line ends → LF; a trailing CR waits for the next read (it may be half of a CRLF).
        if (s.endsWith('\r')) {
          pendingCr = true;
          s = s.slice(0, -1);
        }
        s = s.replace(/\r\n?/g, '\n');
      }
      if (s === '') return;
      // The usual read: whole events, nothing held back from the one before.
      if (heldLength === 0 && s.length > 1 && s.charCodeAt(s.length - 1) === 10 && s.charCodeAt(s.length - 2) === 10) return block(s);
      // Where the last complete event in this read ends (its blank line may start in the held text).
      const last = s.lastIndexOf('\n\n');
      const cut = last >= 0 ? last + 2 : heldEndsLf && s.charCodeAt(0) === 10 ? 1 : -1;
      if (cut < 0) return hold(s);
      held.push(s.slice(0, cut));
      const text = held.join('');
      held = [];
      heldLength = 0;
      heldEndsLf = false;
      block(text);
      if (cut < s.length) hold(s.slice(cut));
    },
    end() {
      let rest = held.join('');
      held = [];
      heldLength = 0;
      if (pendingCr) rest += '\n';
      pendingCr = false;
      // A last event without its blank line (or a stream cut mid-event): the generic parser decides.
      if (rest.length > 0) generic(rest.replace(/\r\n?/g, '\n'));
      if (!st.done) throw new GatewayError('upstream_error', 'The upstream stream ended before it was complete');
    },
    take() {
      const t = out;
      out = '';
      return t;
    },
  };
}

/**
 * The same transform as an async iterable of client frames (text) over an async iterable of upstream reads
 * (bytes). Frames come whole, so each decodes on its own.
 */
export function chatStreamTransformer(o: ChatStreamOptions, st: ChatStreamState) {
  return async function* frames(body: AsyncIterable<Buffer>): AsyncGenerator<string> {
    const core = chatStreamCore(o, st);
    let t: string;
    try {
      for await (const chunk of body) {
        core.push(chunk);
        if ((t = core.take())) yield textOf(t);
      }
    } catch (e) {
      if ((t = core.take())) yield textOf(t);
      throw streamBroke(e);
    }
    try {
      core.end();
    } catch (e) {
      if ((t = core.take())) yield textOf(t);
      throw e instanceof GatewayError ? e : streamBroke(e);
    }
    if ((t = core.take())) yield textOf(t);
  };
}

/**
 * The upstream body pushed through the core to `sink`, read by read: frames are written as each read completes
 * them, the upstream is paused while the sink is full, and the end (or the break, as a gateway error) reported once.
 */
export function pipeChatStream(res: Pick<UpstreamStreamResponse, 'push'>, core: ChatStreamCore, sink: FrameSink): FrameFlow {
  return new ChatPipe(core, sink).start(res);
}

/** The body consumer of pipeChatStream: one object per stream. */
class ChatPipe implements BodyConsumer {
  private flow: BodyFlow | null = null;
  private failed = false;
  /** A failure while the queued chunks are handed over (inside push) stops the upstream once push has returned. */
  private stopLater = false;

  constructor(
    private readonly core: ChatStreamCore,
    private readonly sink: FrameSink,
  ) {}

  start(res: Pick<UpstreamStreamResponse, 'push'>): BodyFlow {
    const flow = res.push(this);
    this.flow = flow;
    if (this.stopLater) flow.abort();
    return flow;
  }

  data(chunk: Buffer): boolean {
    if (this.failed) return true;
    try {
      this.core.push(chunk);
    } catch (e) {
      // An error event ends the stream: nothing after it is read.
      this.fail(e);
      this.stop();
      return true;
    }
    const t = this.core.take();
    return t === '' || this.sink.write(t);
  }

  end(): void {
    if (this.failed) return;
    try {
      this.core.end();
    } catch (e) {
      return this.fail(e);
    }
    const t = this.core.take();
    if (t) this.sink.write(t);
    this.sink.end();
  }

  error(e: unknown): void {
    if (!this.failed) this.fail(e);
  }

  private fail(e: unknown): void {
    this.failed = true;
    const t = this.core.take();
    if (t) this.sink.write(t);
    this.sink.end(streamBroke(e));
  }

  private stop(): void {
    if (this.flow) this.flow.abort();
    else this.stopLater = true;
  }
}
