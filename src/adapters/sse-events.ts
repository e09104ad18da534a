// Incremental server-sent-events parser for upstream streams. Tolerates `data:` with or without a space
// (DashScope's responses path omits it), CRLF line ends and comment lines (`:HTTP_STATUS/200`).
import { StringDecoder } from 'node:string_decoder';

export interface SseEvent {
  event: string | null;
  data: string;
  id: string | null;
}

export async function* sseEvents(body: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new StringDecoder('utf8');
  let buf = '';
  let event: string | null = null;
  let id: string | null = null;
  let data: string[] = [];
  for await (const chunk of body) {
    buf += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    let pos = 0;
    let nl: number;
    while ((nl = buf.indexOf('\n', pos)) >= 0) {
      let line = buf.slice(pos, nl);
      pos = nl + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (data.length > 0 || event !== null) yield { event, data: data.join('\n'), id };
        event = null;
        id = null;
        data = [];
        continue;
      }
      if (line.charCodeAt(0) === 58 /* ':' */) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id') id = value;
    }
    buf = pos === 0 ? buf : buf.slice(pos);
  }
  buf += decoder.end();
  if (buf.length > 0 && buf.startsWith('data:')) data.push(buf.slice(5).trimStart());
  if (data.length > 0) yield { event, data: data.join('\n'), id };
}
