// Incremental server-sent-events parser for upstream streams. Tolerates `data:` with or without a space
// (DashScope's responses path omits it), CRLF line ends and comment lines (`:HTTP_STATUS/200`).
import { StringDecoder } from 'node:string_decoder';

export interface SseEvent {
  event: string | null;
  data: string;
  id: string | null;
}

/** The parser itself, synchronous: text in (any cut), complete events out. */
export class SseParser {
  private buf = '';
  private event: string | null = null;
  private id: string | null = null;
  private data: string[] = [];

  /** More text; returns the events it completed (in order). */
  push(text: string, out: SseEvent[] = []): SseEvent[] {
    const buf = this.buf + text;
    let pos = 0;
    let nl: number;
    while ((nl = buf.indexOf('\n', pos)) >= 0) {
      let line = buf.slice(pos, nl);
      pos = nl + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (this.data.length > 0 || this.event !== null) out.push({ event: this.event, data: this.data.join('\n'), id: this.id });
        this.event = null;
        this.id = null;
        this.data = [];
        continue;
      }
      if (line.charCodeAt(0) === 58 /* ':' */) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.event = value;
      else if (field === 'id') this.id = value;
    }
    this.buf = pos === 0 ? buf : buf.slice(pos);
    return out;
  }

  /** The end of the stream: a last event without its blank line still counts. */
  end(out: SseEvent[] = []): SseEvent[] {
    const buf = this.buf;
    this.buf = '';
    if (buf.length > 0 && buf.startsWith('data:')) this.data.push(buf.slice(5).trimStart());
    if (this.data.length > 0) out.push({ event: this.event, data: this.data.join('\n'), id: this.id });
    this.data = [];
    return out;
  }
}

/** Every event of a complete text (the stream's whole rest), synchronously. */
export function sseEventsOf(text: string): SseEvent[] {
  const p = new SseParser();
  return p.end(p.push(text));
}

export async function* sseEvents(body: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new StringDecoder('utf8');
  const parser = new SseParser();
  for await (const chunk of body) {
    yield* parser.push(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
  }
  yield* parser.end(parser.push(decoder.end()));
}
