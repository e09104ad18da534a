// Incremental server-sent-events parser for upstream streams. Tolerates `data:` with or without a space
// (DashScope's responses path omits it), CRLF line ends and comment lines (`:HTTP_STATUS/200`).
// Linear in the stream's length however it is cut: each read is searched once, and an unfinished line is kept in
// pieces joined once when its end arrives (re-searching a growing buffer on every read was quadratic).
import { StringDecoder } from 'node:string_decoder';
import { GatewayError } from '../errors/gateway-error.ts';

export interface SseEvent {
  event: string | null;
  data: string;
  id: string | null;
}

/** The longest line, and the longest event's data, an upstream stream may send (characters); see docs/operations.md. */
export const SSE_LINE_LIMIT = 8 * 1024 * 1024;

/** The stream's refusal when a line or an event passes the limit: it is settled as a broken stream. */
export function sseLineTooLong(limit: number): GatewayError {
  return new GatewayError('upstream_error', `The upstream stream sent a line or event longer than ${limit} characters`);
}

/** The parser itself, synchronous: text in (any cut), complete events out. */
export class SseParser {
  /** The unfinished line, in the pieces it came in. */
  private pending: string[] = [];
  private pendingLength = 0;
  private event: string | null = null;
  private id: string | null = null;
  private data: string[] = [];
  private dataLength = 0;

  constructor(private readonly limit = SSE_LINE_LIMIT) {}

  /** More text; returns the events it completed (in order). Throws (upstream_error) past the line limit. */
  push(text: string, out: SseEvent[] = []): SseEvent[] {
    let pos = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', pos)) >= 0) {
      let line = text.slice(pos, nl);
      pos = nl + 1;
      if (this.pending.length > 0) {
        this.pending.push(line);
        line = this.pending.join('');
        this.pending = [];
        this.pendingLength = 0;
      }
      if (line.length > this.limit) throw sseLineTooLong(this.limit);
      this.line(line, out);
    }
    if (pos < text.length) {
      const rest = pos === 0 ? text : text.slice(pos);
      this.pending.push(rest);
      this.pendingLength += rest.length;
      if (this.pendingLength > this.limit) throw sseLineTooLong(this.limit);
    }
    return out;
  }

  private line(raw: string, out: SseEvent[]): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') {
      if (this.data.length > 0 || this.event !== null)
        out.push({ event: this.event, data: this.data.join('\n'), id: this.id });
      this.event = null;
      this.id = null;
      this.data = [];
      this.dataLength = 0;
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' */) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.dataLength += value.length + 1;
      if (this.dataLength > this.limit) throw sseLineTooLong(this.limit);
      this.data.push(value);
    } else if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
  }

  /** The end of the stream: a last event without its blank line still counts. */
  end(out: SseEvent[] = []): SseEvent[] {
    const buf = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    if (buf.length > 0 && buf.startsWith('data:')) this.data.push(buf.slice(5).trimStart());
    if (this.data.length > 0) out.push({ event: this.event, data: this.data.join('\n'), id: this.id });
    this.data = [];
    this.dataLength = 0;
    return out;
  }
}

/** Every event of a complete text (the stream's whole rest), synchronously. */
export function sseEventsOf(text: string, limit = SSE_LINE_LIMIT): SseEvent[] {
  const p = new SseParser(limit);
  return p.end(p.push(text));
}

export async function* sseEvents(
  body: AsyncIterable<Buffer | Uint8Array | string>,
  limit = SSE_LINE_LIMIT,
): AsyncGenerator<SseEvent> {
  const decoder = new StringDecoder('utf8');
  const parser = new SseParser(limit);
  for await (const chunk of body) {
    yield* parser.push(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
  }
  yield* parser.end(parser.push(decoder.end()));
}
