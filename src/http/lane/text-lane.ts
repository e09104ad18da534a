// The text lane: POST /v1/chat/completions, /v1/responses, /v1/messages and /v1/embeddings served straight
// from node:http, ahead of Fastify (which serves every other route). These calls are the gateway's volume, and a
// framework's request/reply objects, hook chains and reply pipeline are a large share of their CPU
// (docs/performance.md). The lane takes the same steps as the framework path through the same functions of
// front.ts, in the same order: request id and state, shutdown refusal, the URL rules, admission, body limits,
// content type and JSON parsing (prototype poisoning refused, as on Fastify's routes), the route, errors in the route's shape,
// the client that leaves, and the record.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { credentialOf } from '../../auth/token-auth.ts';
import { GatewayError, isGatewayError } from '../../errors/gateway-error.ts';
import { unexpectedError } from '../unexpected-error.ts';
import { familyOf, renderError } from '../../errors/render.ts';
import { bodyLimitFor } from '../body-limits.ts';
import { drainThenClose } from '../linger.ts';
import { parseJsonBody } from '../json-body.ts';
import type { GatewayDeps } from '../../core/deps.ts';
import { sendBody, type Exchange } from '../exchange.ts';
import { admit, checkUrl, clientAddress, corsHeaders, errorHeaders, markClientLeft, newRequestState, noteError, routePath, shuttingDown, type Finished } from '../front.ts';
import { newRequestId } from '../request-id.ts';
import { laneHeaders, type LaneHeaders } from './raw-headers.ts';
import { lacksHost, noHost } from '../client-error.ts';
import type { RequestState } from '../request-state.ts';

export interface LaneRoute {
  /** An exact path (a trailing slash and a query string are accepted, as on the framework's routes). */
  path: string;
  handler: (ex: Exchange) => Promise<void>;
}

/** Shared with the framework path: set when the gateway starts draining. */
export interface Lifecycle {
  closing: boolean;
}

class LaneExchange implements Exchange {
  body: unknown = undefined;
  rawBody: string | undefined = undefined;
  /** Whether the route is running: the record waits for it to settle. */
  stage: 'before' | 'running' | 'settled' = 'before';
  /** The request body was read to its end (an error answered before that closes the connection). */
  bodyRead = false;
  private child: Logger | null = null;
  constructor(
    readonly id: string,
    readonly state: RequestState,
    private readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly route: Route,
    private readonly logger: Logger,
  ) {}
  // Node builds the headers object on first use: only a route that forwards headers pays for it (raw-headers.ts).
  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }
  // Bound lazily: only an error path logs, and a child logger per request is not free.
  get log(): Logger {
    return (this.child ??= this.logger.child({ request_id: this.id }));
  }
}

interface Route {
  path: string;
  handler: LaneRoute['handler'];
  limit: number;
}

const JSON_TYPE = 'application/json';

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaType(ct: string): string {
  const i = ct.indexOf(';');
  return (i < 0 ? ct : ct.slice(0, i)).trim().toLowerCase();
}

export class TextLane {
  private readonly routes = new Map<string, Route>();
  private readonly addressOf: ReturnType<typeof clientAddress>;

  constructor(
    private readonly deps: GatewayDeps,
    private readonly life: Lifecycle,
    private readonly record: (f: Finished) => void,
    routes: LaneRoute[],
  ) {
    for (const r of routes) this.routes.set(r.path, { path: r.path, handler: r.handler, limit: bodyLimitFor(r.path, deps.config) });
    this.addressOf = clientAddress(deps.config.trustProxy);
  }

  /** The lane's paths (all POST): the method guard and the OpenAPI document list them with the framework's. */
  get paths(): string[] {
    return [...this.routes.keys()];
  }

  /** Serve the request if it is one of the lane's routes (true); otherwise leave it untouched (false). */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST') return false;
    const path = routePath(req.url ?? '');
    const route = path === null ? undefined : this.routes.get(path);
    if (!route) return false;
    this.run(req, res, route);
    return true;
  }

  // The per-request callbacks below close over the exchange only (state lives on it, steps are methods): a
  // closure over run()'s whole scope, kept on the exchange, made every request's objects outlive two young-
  // generation collections — promoted to the old generation, with frequent mark-compacts (docs/performance.md).
  private run(req: IncomingMessage, res: ServerResponse, route: Route): void {
    const h = laneHeaders(req.rawHeaders);
    const ex = new LaneExchange(newRequestId(), newRequestState(this.addressOf(req.socket.remoteAddress, h.forwardedFor)), req, res, route, this.deps.logger);
    if (this.deps.tracing !== null) ex.state.trace = this.deps.tracing.begin(ex.id, 'POST', req.headers);
    // `on`, not `once`: a response emits 'close' once, and once()'s wrapper and removal are measurable per request.
    res.on('close', () => this.closed(ex));
    if (h.origin !== undefined) this.crossOrigin(res, h.origin);
    try {
      if (this.life.closing) throw shuttingDown();
      if (lacksHost(req, h.host)) throw noHost();
      checkUrl(req.url ?? '');
      // Authenticate before the body is read: unauthenticated callers get 401 cheaply.
      const pending = admit(this.deps, credentialOf(h.authorization, h.apiKey), ex.state, res);
      if (pending === null) this.readBody(req, h, ex);
      else pending.then(() => this.readBody(req, h, ex), (e: unknown) => this.fail(ex, e));
    } catch (e) {
      this.fail(ex, e);
    }
  }

  /** A browser's call from an allowed origin: the CORS headers join whatever the answer writes (cors.ts). */
  private crossOrigin(res: ServerResponse, origin: string): void {
    const c = corsHeaders(this.deps.config.cors, origin);
    if (c) for (const k of Object.keys(c)) res.setHeader(k, c[k]!);
  }

  /**
   * One record per request, written when the response is over ('close' follows 'finish', and also ends a
   * response the client cut) — but not before a route already running has settled: a client that leaves a
   * non-streaming call does not stop it, and its row must carry the usage and amount the ledger got.
   */
  private closed(ex: LaneExchange): void {
    markClientLeft(ex.state, ex.res);
    if (ex.stage !== 'running') this.recordOf(ex);
  }

  private settled(ex: LaneExchange): void {
    ex.stage = 'settled';
    if (ex.res.closed) this.recordOf(ex);
  }

  private recordOf(ex: LaneExchange): void {
    this.record({ id: ex.id, method: 'POST', endpoint: ex.route.path, status: ex.res.statusCode, state: ex.state });
  }

  private readBody(req: IncomingMessage, h: LaneHeaders, ex: LaneExchange): void {
    const route = ex.route;
    const declared = h.contentLength === undefined ? null : Number(h.contentLength);
    const hasBody = declared !== null ? declared > 0 : h.transferEncoding !== undefined;
    const ct = h.contentType;
    if (ct === undefined && !hasBody) {
      ex.bodyRead = true;
      return this.dispatch(ex);
    }
    if (ct === undefined || mediaType(ct) !== JSON_TYPE) return this.fail(ex, new GatewayError('unsupported_content_type', 'Unsupported Content-Type: send application/json'));
    if (declared !== null && declared > route.limit) return this.tooLarge(req, ex);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const complete = () => {
      ex.bodyRead = true;
      if (over) return;
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (text === '') return this.fail(ex, new GatewayError('invalid_json', 'Request body is not valid JSON'));
      try {
        ex.body = parseJsonBody(text);
        ex.rawBody = text;
      } catch (e) {
        return this.fail(ex, isGatewayError(e) ? e : new GatewayError('invalid_json', 'Request body is not valid JSON'));
      }
      this.dispatch(ex);
    };
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > route.limit) {
        over = true;
        this.tooLarge(req, ex);
        return;
      }
      chunks.push(c);
      // The declared length is all there is (node's parser frames the body by it): go on now rather than after the
      // stream's 'end', which node emits a tick later.
      if (size === declared) complete();
    });
    req.on('end', () => {
      if (!ex.bodyRead) complete();
    });
  }

  /** 413, and the connection closes once the rest of the body is drained (bounded: linger.ts), so the client reads it. */
  private tooLarge(req: IncomingMessage, ex: LaneExchange): void {
    drainThenClose(req);
    this.fail(ex, new GatewayError('payload_too_large', 'Request body is too large'));
  }

  private dispatch(ex: LaneExchange): void {
    if (ex.res.closed) return; // the client left while its body was read: nothing to run
    ex.stage = 'running';
    let p: Promise<void>;
    try {
      p = ex.route.handler(ex);
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      () => this.settled(ex),
      (e: unknown) => {
        this.fail(ex, e);
        this.settled(ex);
      },
    );
  }

  /** The error answer in the route's shape (request id, no secrets); a stream already under way is cut instead. */
  private fail(ex: LaneExchange, e: unknown): void {
    const ge = isGatewayError(e) ? e : unexpectedError(e);
    if (ge.code === 'internal_error') ex.log.error({ err: String((e as Error)?.stack ?? e) }, 'unhandled error');
    noteError(ex.state, ge);
    if (ex.res.headersSent) {
      ex.res.destroy();
      return;
    }
    sendBody(ex, ge.status, JSON.stringify(renderError(familyOf(ex.route.path), ge, ex.id)), undefined, errorHeaders(ge, ex.bodyRead));
  }
}
