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
import { pairMemo, quotedName } from '../../json/name-memo.ts';
import { objectAfterKey } from '../json-scan.ts';
import { SSE_LINE_LIMIT, sseEventsOf, sseLineTooLong } from '../sse-events.ts';
import type { TokenUsage } from '../types.ts';
import { dashscopeStreamError, firstString, streamBroke, withContractCacheFields } from './compat-chat-common.ts';
import {
  bytesOf,
  deltaChars,
  hasUsage,
  nextUsage,
  renameModels,
  textOf,
  type Latin1Buffer,
} from './compat-chat-scan.ts';

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

/** The byte strings a rename looks for and writes, per model pair. */
const renamingOf = pairMemo((upstreamModel, publicModel) => ({
  from: bytesOf(upstreamModel),
  compact: bytesOf(`"model":${quotedName(publicModel)}`),
  spaced: bytesOf(`"model": ${quotedName(publicModel)}`),
}));

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

  /**
   * One event's data (a byte string, a decision to make): the client frame, or '' to drop it. Throws on an error event.
   */
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
      if (
        !carriesUsage &&
        !text.startsWith('{"error"', start) &&
        !(end - start === 6 && text.startsWith('[DONE]', start))
      )
        continue;
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
      if (heldLength === 0 && s.length > 1 && s.charCodeAt(s.length - 1) === 10 && s.charCodeAt(s.length - 2) === 10)
        return block(s);
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
