// Fastify's side of the one request life (life.ts): its hooks drive the same object the text lane drives — begin
// (onRequest), run (as the handler starts, the body read: where the lane runs it too), settled (onSend), fail (the
// error handler, the 404/405 answer, a URL the router could not decode) and closed (the response's 'close'). Its
// routes are the route table's Fastify rows, registered by iterating them; a route without a row stops the start.
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { credentialFrom } from '../../auth/token-auth.ts';
import type { GatewayDeps } from '../../core/deps.ts';
import { GatewayError, isGatewayError } from '../../errors/gateway-error.ts';
import type { Family } from '../../errors/render.ts';
import { notJson } from '../json-body.ts';
import { unexpectedError } from '../unexpected-error.ts';
import { clientAddress } from './address.ts';
import { limitOf } from './body-limits.ts';
import { RequestLife, type Drain } from './life.ts';
import { MethodGuard } from './method-guard.ts';
import { admit, type Finished } from './record.ts';
import type { FastifyHandler, FastifyRow, RouteInfo, RouteParts, Scope } from './route-row.ts';
import { rowFinder, unmatched, type RouteRow } from './route-table.ts';
import { corsHeaders, markFirstByte, newRequestState, preflightHeaders, REQUEST_ID_HEADERS } from './rules.ts';

declare module 'fastify' {
  interface FastifyRequest {
    life: FastifyLife;
  }
  interface FastifyContextConfig {
    /** The route's row (route-table.ts), set as it is registered. */
    row?: RouteRow;
  }
}

/** Translate framework errors (body parsing, limits, validation) into catalogue errors. */
export function toGatewayError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  const e = err as Partial<FastifyError> & { message?: string };
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return notJson();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new GatewayError('payload_too_large', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('unsupported_content_type', 'Unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid_request', 'Request body size did not match Content-Length');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new GatewayError('unsupported_content_type', 'Expected a multipart/form-data body');
    default:
      break;
  }
  if (e.validation) return new GatewayError('invalid_request', `Invalid request: ${e.message ?? 'validation failed'}`);
  if (err instanceof SyntaxError) return notJson();
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new GatewayError('invalid_request', e.message ?? 'Bad request', { status: e.statusCode });
  }
  return unexpectedError(err);
}

/** A row's route is on Fastify (a prefix's root, `/console`, may be registered with its trailing slash). */
export const isRegistered = (app: FastifyInstance, r: RouteInfo): boolean =>
  app.hasRoute({ method: r.method, url: r.path }) || app.hasRoute({ method: r.method, url: `${r.path}/` });

export class FastifyLife extends RequestLife {
  constructor(
    private readonly req: FastifyRequest,
    private readonly reply: FastifyReply,
    client: string,
    family: Family,
    record: (f: Finished) => void,
  ) {
    super(req.id, newRequestState(client), reply.raw, family, record);
  }
  get method(): string {
    return this.req.method;
  }
  get endpoint(): string {
    const url = this.req.url;
    return this.req.routeOptions.url ?? url.split('?')[0] ?? url;
  }
  protected get incoming(): IncomingMessage {
    return this.req.raw;
  }
  get bodyRead(): boolean {
    return this.req.raw.complete;
  }
  get log(): FastifyRequest['log'] {
    return this.req.log;
  }
  protected answer(status: number, body: string, headers: Record<string, string> | undefined): void {
    if (headers) this.reply.headers(headers);
    void this.reply.code(status).type('application/json; charset=utf-8').send(body);
  }
}

/** The errors answered before any route, and the unknown routes, with the request's life. */
export interface FastifyFront {
  /** A URL the router could not decode (Fastify's frameworkErrors). */
  badUrl: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => void;
  /** A request no route took: 405 with Allow for a known path, else `notFound` (404). */
  unknownRoute: (req: FastifyRequest, reply: FastifyReply, notFound?: GatewayError) => FastifyReply;
}

/** Its hooks installed on the app; then the table's Fastify rows registered (their handlers made from `parts`). */
interface Front extends FastifyFront {
  install: (app: FastifyInstance) => void;
  register: (app: FastifyInstance, parts: RouteParts) => Promise<void>;
}

type Recorder = (f: Finished) => void;

export function fastifyFront(deps: GatewayDeps, drain: Drain, record: Recorder, rows: readonly RouteRow[]): Front {
  const addressOf = clientAddress(deps.config.trustProxy);
  const guard = new MethodGuard(rows);
  const rowOf = rowFinder(rows);
  /** A request's life, begun: its row's family, or its prefix's for a path no route has. */
  const lifeOf = (req: FastifyRequest, reply: FastifyReply, row: RouteRow | undefined): FastifyLife => {
    const family = row ? row.family : unmatched(req.url).family;
    const life = new FastifyLife(
      req,
      reply,
      addressOf(req.raw.socket.remoteAddress, req.headers['x-forwarded-for']),
      family,
      record,
    );
    req.life = life;
    req.state = life.state;
    for (const h of REQUEST_ID_HEADERS) reply.header(h, req.id);
    life.begin();
    return life;
  };
  const failWith = (req: FastifyRequest, reply: FastifyReply, err: GatewayError): FastifyReply => {
    (req.life ?? lifeOf(req, reply, undefined)).fail(err);
    return reply;
  };
  const badUrl: FastifyFront['badUrl'] = (err, req, reply) => {
    void failWith(
      req,
      reply,
      new GatewayError(
        'invalid_request',
        err.code === 'FST_ERR_BAD_URL' ? 'The request URL is not valid' : 'Bad request',
        { cause: err },
      ),
    );
  };
  const unknownRoute: FastifyFront['unknownRoute'] = (req, reply, notFound) => {
    const path = req.url.split('?')[0] ?? req.url;
    const allowed = guard.allowed(path);
    if (allowed && !allowed.includes(req.method)) {
      reply.header('allow', allowed.join(', '));
      return failWith(
        req,
        reply,
        new GatewayError('method_not_allowed', `Method ${req.method} is not allowed on ${path}`),
      );
    }
    return failWith(req, reply, notFound ?? new GatewayError('not_found', `Unknown path ${path}`));
  };

  const install = (app: FastifyInstance): void => {
    app.decorateRequest('life', null as unknown as FastifyLife);
    // Registration reads the table: a route without a row stops the start; its row gives its body limit.
    app.addHook('onRoute', (r) => {
      for (const m of Array.isArray(r.method) ? r.method : [r.method]) {
        const row = rowOf(m, r.url);
        if (row?.front !== 'fastify')
          throw new Error(`${m} ${r.url} is not a Fastify route of the route table (http/front/route-table.ts)`);
        r.config = { ...r.config, row };
        r.bodyLimit ??= limitOf(row.body, deps.config);
      }
    });
    // Callback-style hook: a cached token without limits (the common case) is admitted synchronously, without a
    // promise per request; a cache miss or a token with limits takes the async path.
    app.addHook('onRequest', (req, reply, done) => {
      const row = req.routeOptions.config?.row;
      const life = lifeOf(req, reply, row);
      if (deps.tracing !== null) life.state.trace = deps.tracing.begin(req.id, req.method, req.headers);
      const origin = req.headers.origin;
      if (origin !== undefined && deps.config.cors !== null) {
        // A preflight from an allowed origin is answered here, before authentication (it carries no credential).
        const pre = preflightHeaders(deps.config.cors, req.method, req.headers as Record<string, string | undefined>);
        if (pre) return void reply.code(204).headers(pre).send();
        const c = corsHeaders(deps.config.cors, origin);
        if (c) reply.headers(c);
      }
      life.enter(drain, req.url);
      // Authenticate before the body is parsed: unauthenticated callers get 401 cheaply.
      if (!(row ? row.auth === 'token' : unmatched(req.url).auth)) return done();
      const pending = admit(deps, credentialFrom(req.headers), life.state, reply.raw, life.family);
      if (pending === null) return done();
      pending.then(() => {
        // The client left while it was being admitted: its record is written (life.ts), its body is not read.
        if (life.left) return done(clientLeft());
        done();
      }, done);
    });
    app.addHook('onSend', (req, _reply, payload, done) => {
      const life = req.life;
      if (life) {
        markFirstByte(life.state);
        life.settled();
      }
      done(null, payload);
    });
    app.setErrorHandler((err, req, reply) => failWith(req, reply, toGatewayError(err)));
    app.setNotFoundHandler((req, reply) => unknownRoute(req, reply));
    app.addHook('onReady', (done) => {
      // Every Fastify row is registered (a row without its route would be documented but answer 404).
      const missing = rows.filter((r) => r.front === 'fastify' && !isRegistered(app, r));
      done(
        missing.length
          ? new Error(`Route table rows not registered: ${missing.map((r) => `${r.method} ${r.path}`).join(', ')}`)
          : undefined,
      );
    });
  };
  /** Each scope registered once (its prefix, hooks and parsers), then its rows in it, in the table's order. */
  const register = async (app: FastifyInstance, parts: RouteParts): Promise<void> => {
    const scopes = new Map<Scope, FastifyRow[]>();
    for (const r of rows) if (r.front === 'fastify') scopes.set(r.scope, [...(scopes.get(r.scope) ?? []), r]);
    for (const [scope, own] of scopes) {
      const plugin = async (s: FastifyInstance) => {
        await scope.setup?.(s, parts, unknownRoute);
        for (const r of own) {
          const url = r.path.slice(scope.prefix.length) || '/';
          s.route({ method: r.method, url, handler: started(r.handler(parts)) });
        }
      };
      await app.register(plugin, { prefix: scope.prefix });
    }
  };
  return { badUrl, unknownRoute, install, register };
}

/**
 * The route starts (the life's run, as on the lane: admitted, body read) — unless its client has left: its record is
 * written (life.ts), and the lifecycle ends through the error path, whose answer goes nowhere.
 */
const started =
  (handler: FastifyHandler): FastifyHandler =>
  (req, reply) => {
    if (!req.life.run()) throw clientLeft();
    return handler(req, reply);
  };

const clientLeft = (): GatewayError => new GatewayError('invalid_request', 'The client closed the connection');
