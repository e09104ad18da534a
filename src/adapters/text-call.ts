// An upstream answer read whole, as text: the dispatch handler that collects it, and the answer it gives.
import type { Dispatcher } from 'undici';
import type { AbortLink } from './abort-link.ts';
import type { Deadline } from './deadlines.ts';
import { networkError } from './network-errors.ts';
import {
  connected,
  parseRawHeaders,
  rawHeader,
  released,
  type ParsedHeaders,
  type RawDispatchHandler,
} from './raw-dispatch.ts';

/** A whole upstream answer as text (see UpstreamClient.requestText). */
export interface UpstreamTextResponse {
  statusCode: number;
  /** All headers (names lower-cased; a repeated header is an array), built on first use. */
  readonly headers: Dispatcher.ResponseData['headers'];
  /** The first value of one header (`name` lower-case), without building the headers object. */
  header(name: string): string | null;
  text: string;
}

class TextAnswer implements UpstreamTextResponse {
  private parsed: ParsedHeaders | null = null;

  constructor(
    readonly statusCode: number,
    private readonly raw: Buffer[],
    readonly text: string,
  ) {}

  get headers(): ParsedHeaders {
    return (this.parsed ??= parseRawHeaders(this.raw));
  }

  header(name: string): string | null {
    return rawHeader(this.raw, name);
  }
}

/**
 * One answer read whole: the dispatch handler and everything the call keeps, in one object (not a handler of
 * closures over a shared scope: fewer objects alive while the upstream answers).
 */
export class TextCall implements RawDispatchHandler {
  private statusCode = 0;
  private raw: Buffer[] = [];
  private chunks: Buffer[] = [];

  constructor(
    private resolve: ((a: UpstreamTextResponse) => void) | null,
    private reject: ((e: unknown) => void) | null,
    private readonly deadline: Deadline,
    private readonly link: AbortLink | null,
  ) {}

  onConnect(abort: (reason?: Error) => void): void {
    connected(abort, this.deadline, this.link);
  }

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    this.deadline.progressed();
    this.statusCode = status;
    this.raw = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.deadline.progressed();
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    const resolve = this.resolve;
    this.settle();
    const c = this.chunks;
    resolve?.(
      new TextAnswer(
        this.statusCode,
        this.raw,
        c.length === 1 ? c[0]!.toString('utf8') : Buffer.concat(c).toString('utf8'),
      ),
    );
  }

  onError(e: Error): void {
    const reject = this.reject;
    this.settle();
    reject?.(networkError(e));
  }

  /** Once: the deadline and the abort link let go, and a late callback finds nothing to settle. */
  private settle(): void {
    this.resolve = null;
    this.reject = null;
    released(this.deadline, this.link);
  }
}
