// Requests node's HTTP parser refuses before any route or hook runs (malformed framing, a request line and headers
// over the size limit, a request not received in time): answered in the family's error shape with a request id,
// instead of the framework's own body. The family is read from the request line when node kept it.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError } from '../errors/gateway-error.ts';
import { familyOf, renderError } from '../errors/render.ts';
import { newRequestId } from './request-id.ts';
import { REQUEST_ID_HEADERS } from './front.ts';

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

export function clientErrorHandler(err: ParserError, socket: Socket): void {
  // A reset connection, or one already gone: nothing to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = classify(err.code);
  const id = newRequestId();
  const body = JSON.stringify(renderError(familyOf(pathOf(err.rawPacket)), new GatewayError('invalid_request', message, { status }), id));
  // As node does: answer only if nothing was written on this connection yet (not in the middle of a response).
  const untouched = socket.bytesWritten === 0;
  if (socket.writable && untouched) {
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADERS.map((h) => `${h}: ${id}\r\n`).join('')}Connection: close\r\n\r\n${body}`);
  } else {
    socket.destroy();
  }
}
