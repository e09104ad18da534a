// Requests node's HTTP server answers before any route or hook runs — what its parser refuses (malformed framing, a
// request line and headers over the size limit, a request not received in time), an Expect header it cannot meet,
// a CONNECT — answered in the family's error shape with a request id, instead of node's bare answer or none. The
// family is read from the request line when node kept it.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.ts';
import { familyOf, renderError } from '../errors/render.ts';
import { newRequestId } from './request-id.ts';
import { REQUEST_ID_HEADERS } from './front/rules.ts';

interface ParserError extends Error {
  code?: string;
  /** The bytes node's parser had when it failed (node sets a Buffer on parse errors). */
  rawPacket?: unknown;
}

function classify(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request was not received in time' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'The request line and headers are too large' };
  return { status: 400, message: 'The request is not valid HTTP' };
}

/** The path of the request line in `raw`, if it is there. */
function pathOf(raw: unknown): string {
  if (!Buffer.isBuffer(raw)) return '';
  const line = raw.toString('latin1', 0, Math.min(raw.length, 256));
  const parts = line.split(' ', 2);
  return parts[1] ?? '';
}

/**
 * The path of the request being read on `socket` when node gives up on it (a request not received in time carries no
 * bytes): the request whose headers are complete (its body was late), else the request line node's parser has
 * buffered (its headers were late). '' when neither is known.
 */
function pathOnSocket(socket: Socket): string {
  const parser = (socket as Socket & { parser?: { incoming?: { url?: unknown } | null; _url?: unknown } | null })
    .parser;
  const url = parser?.incoming?.url ?? parser?._url;
  return typeof url === 'string' ? url : '';
}

/** node's http server keeps the response in flight on its socket (`_httpMessage`) until that response is done. */
function responseBegun(socket: Socket): boolean {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  return inFlight !== undefined && inFlight !== null && inFlight.headersSent === true;
}

export function clientErrorHandler(err: ParserError, socket: Socket): void {
  // A reset connection, or one already gone: nothing to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = classify(err.code);
  // As node's own handler does: answer unless a response on this connection has begun (its bytes and ours would
  // interleave). A keep-alive connection whose earlier answers are complete is answered too.
  if (socket.writable && !responseBegun(socket))
    socket.end(
      rawAnswer(
        pathOf(err.rawPacket) || pathOnSocket(socket),
        new GatewayError('invalid_request', message, { status }),
      ),
    );
  else socket.destroy();
}

/** An error answer's headers and body: the error in the path's family, a request id, the connection closed after it. */
function errorAnswer(path: string, err: GatewayError): { headers: Array<[string, string]>; body: string } {
  const id = newRequestId();
  const body = JSON.stringify(renderError(familyOf(path), err, id));
  const headers: Array<[string, string]> = [
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', String(Buffer.byteLength(body))],
    ...REQUEST_ID_HEADERS.map((h): [string, string] => [h, id]),
    ['Connection', 'close'],
  ];
  return { headers, body };
}

/** The same as a whole HTTP answer, for a socket no response object is writing to. */
function rawAnswer(path: string, err: GatewayError): string {
  const { headers, body } = errorAnswer(path, err);
  return `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;
}

/**
 * A request whose Expect header is not `100-continue` (node's 'checkExpectation'; without a listener node answers
 * a bare 417): 417 in the family's shape, and the connection closes (the body it announced is not read).
 */
export function expectationFailed(req: IncomingMessage, res: ServerResponse): void {
  const { headers, body } = errorAnswer(
    req.url ?? '',
    new GatewayError('invalid_request', 'Only "Expect: 100-continue" is supported', { status: 417 }),
  );
  res.writeHead(417, headers.flat()).end(body);
}

/** The refusal of an HTTP/1.1 request without a Host header (the connection closes after it). */
export const noHost = (): GatewayError =>
  new GatewayError('invalid_request', 'An HTTP/1.1 request must carry a Host header', {
    headers: { connection: 'close' },
  });

/** HTTP/1.1 requires a Host header (node's own check is off in app.ts: it answers a bare 400 with no body). */
export const lacksHost = (req: IncomingMessage, hasHost: boolean): boolean =>
  !hasHost && req.httpVersionMajor === 1 && req.httpVersionMinor === 1;

/**
 * An HTTP/1.1 request without a Host header on a framework route: 400 in the family's shape with a request id, and
 * the connection closes. True when it was answered.
 */
export function missingHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (!lacksHost(req, req.headers.host !== undefined)) return false;
  const { headers, body } = errorAnswer(req.url ?? '', noHost());
  res.writeHead(400, headers.flat()).end(body);
  req.resume();
  return true;
}

/** CONNECT, a proxy's tunnel (node's 'connect'; without a listener node closes the connection unanswered): 405. */
export function connectRefused(req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => undefined);
  socket.end(rawAnswer('', new GatewayError('method_not_allowed', `Method ${req.method ?? 'CONNECT'} is not allowed`)));
}
