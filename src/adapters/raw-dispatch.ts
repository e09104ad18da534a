// undici's original dispatch-handler callbacks, which its connection code calls directly, and the raw header list
// they carry. undici serves the newer onRequestStart/onResponse* interface through an adapter: a wrapper and a
// controller per call, and the answer's headers and (empty) trailers parsed into objects on every answer. The hot
// calls (answers read whole, streams) speak this interface instead, keep the raw list, read the one header they
// need from it, and build the headers object only when asked (error answers).
import { util as undiciUtil, type Dispatcher } from 'undici';
import type { AbortLink } from './abort-link.ts';
import type { Deadline } from './deadlines.ts';

export interface RawDispatchHandler {
  onConnect(abort: (reason?: Error) => void): void;
  /** `resume` restarts a body paused by an `onData` that answered false. */
  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean;
  /** false pauses the body until `resume`. */
  onData(chunk: Buffer): boolean;
  onComplete(trailers: Buffer[] | null): void;
  onError(e: Error): void;
}

export type ParsedHeaders = Dispatcher.ResponseData['headers'];

/** Is `b` the header name `lower` (ASCII, compared case-insensitively)? */
function isName(b: Buffer, lower: string): boolean {
  if (b.length !== lower.length) return false;
  for (let j = 0; j < b.length; j++) {
    const want = lower.charCodeAt(j);
    const got = b[j]!;
    // Letters match either case; any other byte must be the same byte.
    if (got !== want && !(want >= 97 && want <= 122 && got === want - 32)) return false;
  }
  return true;
}

/** The first value of header `name` (lower-case) in a raw list, without building the headers object. */
export function rawHeader(raw: readonly Buffer[], name: string): string | null {
  for (let i = 0; i + 1 < raw.length; i += 2) if (isName(raw[i]!, name)) return raw[i + 1]!.toString('latin1');
  return null;
}

/** All headers as an object (names lower-cased; a repeated header is an array). */
export function parseRawHeaders(raw: Buffer[]): ParsedHeaders {
  return undiciUtil.parseHeaders(raw) as ParsedHeaders;
}

/** The call reached a connection (onConnect): its time limits start, and its caller's signal can stop it now. */
export function connected(
  abort: (reason?: Error) => void,
  deadline: Deadline | undefined,
  link: AbortLink | null,
): void {
  const c = { abort };
  deadline?.started(c);
  link?.attach(c);
}

/** The call settled: its time limits and its abort listener let go of it. */
export function released(deadline: Deadline | undefined, link: AbortLink | null): void {
  deadline?.done();
  link?.off();
}

/** undici's type for a handler; it calls the original callbacks of one that has no onRequestStart. */
export const asDispatchHandler = (h: RawDispatchHandler): Dispatcher.DispatchHandler => h as Dispatcher.DispatchHandler;
