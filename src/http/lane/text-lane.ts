// The text lane: the route table's lane rows (chat completions, responses, messages, embeddings), served straight
// from node:http, ahead of Fastify (which serves every other route). These calls are the gateway's volume, and a
// framework's request/reply objects, hook chains and reply pipeline are a large share of their CPU
// (docs/performance.md). The lane is a branch of the one request life (front/life.ts): its exchange IS the life,
// driven through the same steps as on Fastify — begin, the first rules, admission, body limits, content type, the
// JSON body (the one reader, json-body.ts), run, settled or fail, closed and the one record.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { credentialOf } from '../../auth/token-auth.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { limitOf, textLimitOf } from '../front/body-limits.ts';
import { readJsonBody } from '../json-body.ts';
import type { GatewayDeps } from '../../core/deps.ts';
import { sendBody, type Exchange } from '../exchange.ts';
import { clientAddress } from '../front/address.ts';
import { RequestLife, type Drain } from '../front/life.ts';
import { admit, type Finished } from '../front/record.ts';
import type { LaneHandler, RouteParts, RouteRow } from '../front/route-row.ts';
import { corsHeaders, newRequestState, routePath } from '../front/rules.ts';
import { newRequestId } from '../request-id.ts';
import { laneHeaders, type LaneHeaders } from './raw-headers.ts';
import { lacksHost, noHost } from '../client-error.ts';

interface Route {
  path: string;
  handler: LaneHandler;
  limit: number;
  /** The most characters outside inline media (body-limits.ts textLimitOf). */
  textLimit: number;
  row: RouteRow;
}

class LaneExchange extends RequestLife implements Exchange {
  body: unknown = undefined;
  rawBody: string | undefined = undefined;
  bodyRead = false;
  private child: Logger | null = null;
  protected get incoming(): IncomingMessage {
    return this.req;
  }
  constructor(
    id: string,
    client: string,
    private readonly req: IncomingMessage,
    res: ServerResponse,
    readonly route: Route,
    private readonly logger: Logger,
    record: (f: Finished) => void,
  ) {
    super(id, newRequestState(client), res, route.row.family, record);
  }
  get method(): string {
    return 'POST';
  }
  get endpoint(): string {
    return this.route.path;
  }
  // Node builds the headers object on first use: only a route that forwards headers pays for it (raw-headers.ts).
  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }
  // Bound lazily: only an error path logs, and a child logger per request is not free.
  get log(): Logger {
    return (this.child ??= this.logger.child({ request_id: this.id }));
  }
  protected answer(status: number, body: string, headers: Record<string, string> | undefined): void {
    sendBody(this, status, body, undefined, headers);
  }
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
  private readonly deps: GatewayDeps;

  /** The route table's lane rows (all POST) of `rows`, each with its handler made from `parts`. */
  constructor(
    private readonly drain: Drain,
    private readonly record: (f: Finished) => void,
    rows: readonly RouteRow[],
    parts: RouteParts,
  ) {
    const deps = (this.deps = parts.deps);
    for (const row of rows) {
      if (row.front !== 'lane') continue;
      if (row.method !== 'POST') throw new Error(`The lane serves POST only, not ${row.method} ${row.path}`);
      const [limit, textLimit] = [limitOf(row.body, deps.config), textLimitOf(row.body, deps.config)];
      const route: Route = { path: row.path, handler: row.handler(parts), limit, textLimit, row };
      this.routes.set(row.path, route);
    }
    this.addressOf = clientAddress(deps.config.trustProxy);
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
    const ex = new LaneExchange(
      newRequestId(),
      this.addressOf(req.socket.remoteAddress, h.forwardedFor),
      req,
      res,
      route,
      this.deps.logger,
      this.record,
    );
    if (this.deps.tracing !== null) ex.state.trace = this.deps.tracing.begin(ex.id, 'POST', req.headers);
    ex.begin();
    if (h.origin !== undefined) this.crossOrigin(res, h.origin);
    try {
      ex.enter(this.drain, req.url ?? '');
      if (lacksHost(req, h.host)) throw noHost();
      // Authenticate before the body is read: unauthenticated callers get 401 cheaply.
      const pending = admit(this.deps, credentialOf(h.authorization, h.apiKey), ex.state, res, route.row.family);
      if (pending === null) this.readBody(req, h, ex);
      else
        pending.then(
          () => this.readBody(req, h, ex),
          (e: unknown) => ex.fail(e),
        );
    } catch (e) {
      ex.fail(e);
    }
  }

  /** A browser's call from an allowed origin: the CORS headers join whatever the answer writes (cors.ts). */
  private crossOrigin(res: ServerResponse, origin: string): void {
    const c = corsHeaders(this.deps.config.cors, origin);
    if (c) for (const k of Object.keys(c)) res.setHeader(k, c[k]!);
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
    if (ct === undefined || mediaType(ct) !== JSON_TYPE)
      return ex.fail(new GatewayError('unsupported_content_type', 'Unsupported Content-Type: send application/json'));
    if (declared !== null && declared > route.limit) return this.tooLarge(ex);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const complete = () => {
      ex.bodyRead = true;
      if (over) return;
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      try {
        ex.body = readJsonBody(text, 'refuse', route.textLimit);
        ex.rawBody = text;
      } catch (e) {
        return ex.fail(e);
      }
      this.dispatch(ex);
    };
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > route.limit) {
        over = true;
        this.tooLarge(ex);
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

  /**
   * 413, and the connection closes once the rest of the body is drained (bounded: linger.ts), so the client reads it.
   */
  private tooLarge(ex: LaneExchange): void {
    ex.fail(new GatewayError('payload_too_large', 'Request body is too large'));
  }

  private dispatch(ex: LaneExchange): void {
    if (!ex.run()) return; // the client left while its body was read: nothing to run
    let p: Promise<void>;
    try {
      p = ex.route.handler(ex);
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      () => ex.settled(),
      (e: unknown) => {
        ex.fail(e);
        ex.settled();
      },
    );
  }
}
