import { createServer } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors/gateway-error.ts';
import { unexpectedError } from './unexpected-error.ts';
import { familyOf, renderError } from '../errors/render.ts';
import type { GatewayDeps, AppParts } from '../core/deps.ts';
import { RouteTable } from './method-guard.ts';
import { newRequestId } from './request-id.ts';
import type { RequestState } from './request-state.ts';
import { applyBodyLimits } from './body-limits.ts';
import { useJsonBodyParser } from './json-body.ts';
import { clientErrorHandler, connectRefused, expectationFailed, missingHost } from './client-error.ts';
import { TextLane, type Lifecycle } from './lane/text-lane.ts';
import { admit, checkUrl, clientAddress, corsHeaders, errorHeaders, markClientLeft, markFirstByte, newRequestState, noteError, preflightHeaders, REQUEST_ID_HEADERS, requestRecorder, shuttingDown } from './front.ts';
import { textRoutes } from './routes/v1/text-routes.ts';
import { registerAdminRoutes } from './routes/admin/index.ts';
import { registerConsoleRoutes, type UnknownRoute } from './routes/console/index.ts';
import { registerFamilyACallbackRoutes, registerFamilyARoutes } from './routes/vidx/index.ts';
import { registerFamilyBRoutes } from './routes/v1/index.ts';
import { openApiDocument } from './openapi/document.ts';
import { drainThenClose } from './linger.ts';
import { registerOpsRoutes } from './routes/ops.ts';
import { credentialFrom } from '../auth/token-auth.ts';

const CONTRACT_PREFIXES = ['/v1/', '/vidx/'];
// Upstream completion notices carry no bearer token (their address holds an HMAC tag instead).
const UNAUTHENTICATED_PREFIXES = ['/vidx/callbacks/'];

/** Translate framework errors (body parsing, limits, validation) into catalogue errors. */
export function toGatewayError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  const e = err as Partial<FastifyError> & { message?: string };
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('invalid_json', 'Request body is not valid JSON');
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
  if (err instanceof SyntaxError) return new GatewayError('invalid_json', 'Request body is not valid JSON');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new GatewayError('invalid_request', e.message ?? 'Bad request', { status: e.statusCode });
  }
  return unexpectedError(err);
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: GatewayError): FastifyReply {
  noteError(req.state, err);
  // An unread body is drained (bounded) before the connection closes, so a client still sending reads this answer.
  if (!req.raw.complete && !req.raw.destroyed) drainThenClose(req.raw);
  const headers = errorHeaders(err, req.raw.complete);
  if (headers) reply.headers(headers);
  return reply.code(err.status).type('application/json; charset=utf-8').send(renderError(familyOf(req.routeOptions?.url ?? req.url), err, req.id));
}

/** The request id under each of its names (front.ts). */
function idHeaders(reply: FastifyReply, id: string): void {
  for (const h of REQUEST_ID_HEADERS) reply.header(h, id);
}

export async function buildApp(deps: GatewayDeps, parts: AppParts): Promise<FastifyInstance> {
  const life: Lifecycle = { closing: false };
  const record = requestRecorder(deps);
  const addressOf = clientAddress(deps.config.trustProxy);
  const stateOf = (req: FastifyRequest) => newRequestState(addressOf(req.raw.socket.remoteAddress, req.headers['x-forwarded-for']));
  const lane = new TextLane(deps, life, record, textRoutes(deps, parts.text));
  const app = Fastify({
    // The text lane takes its routes straight from node:http; everything else goes to Fastify.
    serverFactory: (handler) => {
      // A request not received in time is cut, checked every second rather than node's default 30 s.
      const timeoutMs = deps.config.requestTimeoutMs;
      // requireHostHeader off: node's own refusal is a bare 400; missingHost answers it in the family's shape.
      const server = createServer({ requestTimeout: timeoutMs, headersTimeout: Math.min(timeoutMs, 60_000), connectionsCheckingInterval: Math.min(1_000, timeoutMs), requireHostHeader: false }, (req, res) => {
        if (!lane.serve(req, res) && !missingHost(req, res)) handler(req, res);
      });
      // What Fastify sets on a server it creates itself (its keep-alive default outlives common load balancers').
      server.keepAliveTimeout = 72_000;
      // Answered by node before any route: in the family's shape with a request id, like the parser's refusals.
      server.on('checkExpectation', expectationFailed);
      server.on('connect', connectRefused);
      return server;
    },
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    // Our own access line (onResponse) replaces Fastify's two per-request lines.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: () => newRequestId(),
    bodyLimit: deps.config.bodyLimit,
    // Requests arriving during the drain are refused by our onRequest hook (family shape, request id)
    // rather than by Fastify's built-in 503 body.
    return503OnClosing: false,
    // Graceful shutdown: idle keep-alive sockets close at once; in-flight requests and streams drain.
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
    // Requests node's parser refuses (before any hook): the family's error shape and a request id.
    clientErrorHandler,
    // A URL that cannot be decoded (e.g. `/v1/%zz`) fails before any hook runs: answer it in the family
    // shape with a request id instead of Fastify's own body.
    frameworkErrors: (err, req, reply) => {
      req.state = stateOf(req);
      idHeaders(reply, req.id);
      void sendError(req, reply, new GatewayError('invalid_request', err.code === 'FST_ERR_BAD_URL' ? 'The request URL is not valid' : 'Bad request', { cause: err }));
    },
  });
  const routes = new RouteTable();
  const registered: Array<{ url: string; method: string | string[] }> = [];
  for (const path of lane.paths) {
    routes.add(path, 'POST');
    registered.push({ url: path, method: 'POST' });
  }
  app.addHook('onRoute', (r) => {
    routes.add(r.url, r.method);
    registered.push({ url: r.url, method: r.method });
  });
  // A request's metrics are labelled with its route; a path that matched none is not a label (metrics.ts).
  const routeUrls = new Set(registered.map((r) => r.url));
  app.addHook('onRoute', (r) => void routeUrls.add(r.url));
  deps.metrics.knowRoutes((path) => routeUrls.has(path));
  app.addHook('onRoute', applyBodyLimits(deps.config));

  app.decorateRequest('state', null as unknown as RequestState);
  app.addHook('preClose', async () => {
    life.closing = true;
  });
  // Callback-style hook: a cached token without limits (the common case) is admitted synchronously, without
  // a promise per request; a cache miss or a token with limits takes the async path.
  app.addHook('onRequest', (req, reply, done) => {
    req.state = stateOf(req);
    if (deps.tracing !== null) req.state.trace = deps.tracing.begin(req.id, req.method, req.headers);
    idHeaders(reply, req.id);
    const origin = req.headers.origin;
    if (origin !== undefined && deps.config.cors !== null) {
      // A preflight from an allowed origin is answered here, before authentication (it carries no credential).
      const pre = preflightHeaders(deps.config.cors, req.method, req.headers as Record<string, string | undefined>);
      if (pre) return void reply.code(204).headers(pre).send();
      const c = corsHeaders(deps.config.cors, origin);
      if (c) reply.headers(c);
    }
    if (life.closing) throw shuttingDown();
    checkUrl(req.url);
    // A client that leaves before the answer: recorded once the route has settled (onSend), as on the lane.
    reply.raw.on('close', () => {
      if (!markClientLeft(req.state, reply.raw)) return;
      left.add(req);
      if (settled.has(req)) recordOnce(req, reply);
    });
    // Authenticate contract paths before the body is parsed: unauthenticated callers get 401 cheaply. The matched
    // route decides, not the raw URL: the router decodes `/%761/models` to /v1/models.
    const path = req.routeOptions.url ?? req.url;
    if (!CONTRACT_PREFIXES.some((p) => path.startsWith(p)) || UNAUTHENTICATED_PREFIXES.some((p) => path.startsWith(p))) return done();
    const pending = admit(deps, credentialFrom(req.headers), req.state, reply.raw);
    if (pending === null) return done();
    pending.then(() => {
      // The client left while it was being admitted: nothing to run, and Fastify would wait for a body that will
      // not come. Its record now (which gives back a concurrency slot it was just given); the route never starts —
      // the lifecycle ends through the error path, whose answer goes nowhere.
      if (left.has(req)) {
        recordOnce(req, reply);
        return done(new GatewayError('invalid_request', 'The client closed the connection'));
      }
      done();
    }, done);
  });

  // One record per request: when the answer is written (onResponse), or — for a client that left — once the route
  // settled (onSend). Synchronous work (a log line, a buffered row): callback hooks spare a promise per request.
  const recorded = new WeakSet<FastifyRequest>();
  const settled = new WeakSet<FastifyRequest>();
  const left = new WeakSet<FastifyRequest>();
  const recordOnce = (req: FastifyRequest, reply: FastifyReply) => {
    if (!req.state || recorded.has(req)) return;
    recorded.add(req);
    record({ id: req.id, method: req.method, endpoint: req.routeOptions.url ?? req.url.split('?')[0] ?? req.url, status: reply.statusCode, state: req.state });
  };
  app.addHook('onSend', (req, reply, payload, done) => {
    settled.add(req);
    if (req.state) markFirstByte(req.state);
    if (left.has(req)) recordOnce(req, reply);
    done(null, payload);
  });
  app.addHook('onResponse', (req, reply, done) => {
    try {
      recordOnce(req, reply);
    } catch (e) {
      done(e as Error);
      return;
    }
    done();
  });

  app.setErrorHandler((err, req, reply) => {
    const ge = toGatewayError(err);
    if (ge.code === 'internal_error') req.log.error({ err: String((err as Error)?.stack ?? err) }, 'unhandled error');
    if (!req.state) req.state = stateOf(req);
    idHeaders(reply, req.id);
    return sendError(req, reply, ge);
  });

  // A request no route took: a known path with another method is 405 with Allow, anything else `notFound` (404).
  const unknownRoute: UnknownRoute = (req, reply, notFound) => {
    const path = req.url.split('?')[0] ?? req.url;
    const allowed = routes.allowed(path);
    if (allowed && !allowed.includes(req.method)) {
      reply.header('allow', allowed.join(', '));
      return sendError(req, reply, new GatewayError('method_not_allowed', `Method ${req.method} is not allowed on ${path}`));
    }
    return sendError(req, reply, notFound ?? new GatewayError('not_found', `Unknown path ${path}`));
  };
  app.setNotFoundHandler((req, reply) => unknownRoute(req, reply));

  // Bodies are JSON (or multipart where a route registers it): without this, Fastify's built-in
  // text/plain parser would hand routes a string instead of answering 415.
  app.removeContentTypeParser('text/plain');
  // The lane's JSON parser on Fastify's routes too (json-body.ts): the same poisoning and nesting refusals.
  useJsonBodyParser(app, 'refuse');

  registerOpsRoutes(app, deps);
  let openApi: Record<string, unknown> | null = null;
  app.get('/openapi.json', async () => (openApi ??= openApiDocument(registered)));

  await app.register(async (scope) => registerAdminRoutes(scope, deps), { prefix: '/admin' });
  if (deps.config.console.enabled) await app.register(async (scope) => registerConsoleRoutes(scope, deps, unknownRoute), { prefix: '/console' });
  await app.register(async (scope) => registerFamilyBRoutes(scope, deps), { prefix: '/v1' });
  await app.register(async (scope) => registerFamilyARoutes(scope, parts.vidx), { prefix: '/vidx/v1' });
  await app.register(async (scope) => registerFamilyACallbackRoutes(scope, parts.vidx), { prefix: '/vidx/callbacks' });

  app.addHook('onClose', async () => {
    await deps.requestLog.flush();
  });
  return app;
}
