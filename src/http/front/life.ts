// One request's life, the same object whichever front drives it (Fastify for most routes: fastify-front.ts; the
// text lane for the hot text routes: lane/text-lane.ts), through the same steps on both: begin (the connection
// watched), enter (the first rules), run (the route started, its body read), fail (the one error answer, in the
// route's family shape), settled (the route is done) and closed (the response is over — finished, or cut by a
// client that left). It writes the request's record exactly once: when the response is over and the route, if it
// started, has settled — a client that leaves a running call does not stop it, and the record must carry the usage
// and amount the ledger got.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { isGatewayError, type GatewayError } from '../../errors/gateway-error.ts';
import { redactSecrets } from '../../errors/redact.ts';
import { renderError, type Family } from '../../errors/render.ts';
import { unexpectedError } from '../unexpected-error.ts';
import { drainThenClose } from '../linger.ts';
import type { RequestState } from '../request-state.ts';
import type { Finished } from './record.ts';
import { checkUrl, errorHeaders, shuttingDown } from './rules.ts';

const BEFORE = 0;
const RUNNING = 1;
const SETTLED = 2;

const LIFE = Symbol('request-life');
type Watched = ServerResponse & { [LIFE]: RequestLife };

/** node calls a listener with its emitter as `this`: one shared function, no closure per request. */
function onClose(this: Watched): void {
  this[LIFE].closed();
}

/** Shared by both fronts: set when the gateway starts draining. */
export interface Drain {
  closing: boolean;
}

const noop = (): void => undefined;

export abstract class RequestLife implements Finished {
  private stage = BEFORE;

  constructor(
    readonly id: string,
    readonly state: RequestState,
    readonly res: ServerResponse,
    /** The error shape: the route's row, or for a path no route has, its prefix (route-table.ts). */
    readonly family: Family,
    private readonly record: (f: Finished) => void,
  ) {}

  abstract readonly method: string;
  /** The route's path (no query string): the record's endpoint and the metrics label. */
  abstract readonly endpoint: string;
  /** The request body was read to its end (an error answered before that closes the connection). */
  abstract readonly bodyRead: boolean;
  abstract readonly log: Pick<Logger, 'error'>;
  /** The request as node gave it (its unread body is drained before an early answer closes the connection). */
  protected abstract readonly incoming: IncomingMessage;
  /** Write a whole answer (the front's own way: Fastify's reply, or the raw response). */
  protected abstract answer(status: number, body: string, headers: Record<string, string> | undefined): void;

  get status(): number {
    return this.res.statusCode;
  }

  /** Watch the connection: its 'close' ends the life (and, for a client that left, records it). */
  begin(): void {
    (this.res as Watched)[LIFE] = this;
    // `on`, not `once`: a response emits 'close' once, and once()'s wrapper and removal are measurable per request.
    this.res.on('close', onClose);
  }

  /** The client leaving before its answer (its connection closed first): a queued upstream call leaves the queue. */
  onClientLeave(listener: () => void): () => void {
    const res = this.res;
    if (res.destroyed) {
      queueMicrotask(listener);
      return noop;
    }
    const l = (): void => {
      if (!res.writableFinished) listener();
    };
    res.on('close', l);
    return () => res.off('close', l);
  }

  /** The rules every request meets before admission (throws the refusal): the drain, the URL rules. */
  enter(drain: Drain, url: string): void {
    if (drain.closing) throw shuttingDown();
    checkUrl(url);
  }

  /**
   * The route starts, on both fronts at the same step — admitted, its body read, its handler next: from now on the
   * record waits for it to settle. False, and nothing starts, when the client has already left (its record is written).
   */
  run(): boolean {
    if (this.left) return false;
    this.stage = RUNNING;
    return true;
  }

  settled(): void {
    this.stage = SETTLED;
    if (this.res.closed) this.recordOnce();
  }

  /** The response is over ('close' follows 'finish', and also ends a response the client cut). */
  closed(): void {
    const res = this.res;
    // The client left before the whole answer: the record says so — 499, the usual "client closed request" status,
    // when nothing was answered.
    if (!res.writableFinished) {
      this.state.errorCode ??= 'client_closed';
      if (!res.headersSent) res.statusCode = 499;
    }
    if (this.stage !== RUNNING) this.recordOnce();
  }

  /** Whether the client is gone (the response closed before it was finished). */
  get left(): boolean {
    return this.res.closed && !this.res.writableFinished;
  }

  /** The error answer in the family's shape (request id, no secrets); a stream already under way is cut instead. */
  fail(e: unknown): void {
    const ge = isGatewayError(e) ? e : unexpectedError(e);
    if (ge.code === 'internal_error') {
      const cause = ge.cause ?? e;
      this.log.error({ err: String((cause as Error)?.stack ?? cause) }, 'unhandled error');
    }
    this.noteError(ge);
    if (this.left && !this.res.headersSent) {
      // Gone before any answer (mid-body, or while an upstream failed): its record says 499 client_closed (and keeps
      // the upstream's id and words). The answer goes nowhere; it only ends the route the front's way (on Fastify,
      // its onSend settles it).
      this.state.errorCode = 'client_closed';
      this.answer(499, '', undefined);
      return;
    }
    if (this.res.headersSent) {
      this.res.destroy();
      return;
    }
    // An unread body is drained (bounded: linger.ts) before the connection closes, so a client still sending reads this
    // answer.
    if (!this.bodyRead && !this.incoming.destroyed) drainThenClose(this.incoming);
    this.answer(ge.status, JSON.stringify(renderError(this.family, ge, this.id)), errorHeaders(ge, this.bodyRead));
  }

  /**
   * The error the request is answered with (or its stream ended with), as its record keeps it: the catalogue code,
   * the upstream's request id and — for operators only — the upstream's own words (secrets scrubbed).
   */
  noteError(err: GatewayError): void {
    const st = this.state;
    st.errorCode = err.code;
    if (err.upstreamRequestId) st.upstreamRequestId = err.upstreamRequestId;
    if (err.upstreamMessage !== undefined) st.upstreamError = redactSecrets(err.upstreamMessage);
  }

  private recordOnce(): void {
    if (!this.state.recorded) this.record(this);
  }
}
