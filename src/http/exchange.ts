// One request as the text lane hands it to a route (the request's life: front/life.ts): what the handler reads (id,
// state, headers, parsed body)
// and the raw response it answers on. Deliberately small — no framework objects on the hot path.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { markFirstByte, REQUEST_ID_HEADERS } from './front/rules.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { RequestState } from './request-state.ts';

export interface Exchange {
  readonly id: string;
  readonly state: RequestState;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  /** The JSON text `body` was parsed from, when the route may send it on as it is (json-splice.ts). */
  readonly rawBody?: string | undefined;
  readonly res: ServerResponse;
  /** A logger bound to the request id. */
  readonly log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The error a stream under way ended with, kept for the request's record (front/life.ts). */
  noteError(err: GatewayError): void;
}

const [RID0, RID1, RID2] = REQUEST_ID_HEADERS;

/** A whole answer: status, content type and length, the request id (under each of its names), and any extra headers. */
export function sendBody(
  ex: Pick<Exchange, 'id' | 'res' | 'state'>,
  status: number,
  body: string,
  contentType = 'application/json; charset=utf-8',
  headers?: Record<string, string>,
): void {
  const res = ex.res;
  if (res.headersSent || res.destroyed) return;
  // A flat [name, value, …] list: no header object built (and copied) per answer.
  const id = ex.id;
  const list: string[] = [
    'content-type',
    contentType,
    'content-length',
    String(Buffer.byteLength(body)),
    RID0,
    id,
    RID1,
    id,
    RID2,
    id,
  ];
  if (headers) for (const k of Object.keys(headers)) list.push(k, headers[k]!);
  markFirstByte(ex.state);
  res.writeHead(status, list);
  res.end(body);
}
