import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { credentialFrom } from '../auth/token-auth.ts';
import { GatewayError, isGatewayError } from '../errors/gateway-error.ts';
import { familyOf, renderError } from '../errors/render.ts';
import type { AppDeps } from './deps.ts';
import { RouteTable } from './method-guard.ts';
import { newRequestId, REQUEST_ID_HEADER } from './request-id.ts';
import type { RequestState } from './request-state.ts';
import { applyBodyLimits } from './body-limits.ts';
import { accessLogger } from './access-log.ts';
import { registerAdminRoutes } from './routes/admin/index.ts';
import { registerFamilyACallbackRoutes, registerFamilyARoutes } from './routes/family-a/index.ts';
import { registerFamilyBRoutes } from './routes/family-b/index.ts';
import { openApiDocument } from './openapi.ts';
import { sql } from 'kysely';

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
  return new GatewayError('internal_error', 'Internal error', { cause: err });
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: GatewayError): FastifyReply {
  req.tw.errorCode = err.code;
  if (err.upstreamRequestId) req.tw.upstreamRequestId = err.upstreamRequestId;
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.status).type('application/json; charset=utf-8').send(renderError(familyOf(req.url), err, req.id));
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
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
    // A URL that cannot be decoded (e.g. `/v1/%zz`) fails before any hook runs: answer it in the family
    // shape with a request id instead of Fastify's own body.
    frameworkErrors: (err, req, reply) => {
      req.tw = { startedAt: process.hrtime.bigint(), principal: null, model: null, usage: null, amount: 0, upstreamRequestId: null, errorCode: null };
      reply.header(REQUEST_ID_HEADER, req.id);
      void sendError(req, reply, new GatewayError('invalid_request', err.code === 'FST_ERR_BAD_URL' ? 'The request URL is not valid' : 'Bad request', { cause: err }));
    },
  });
  const routes = new RouteTable();
  const registered: Array<{ url: string; method: string | string[] }> = [];
  app.addHook('onRoute', (r) => {
    routes.add(r.url, r.method);
    registered.push({ url: r.url, method: r.method });
  });
  app.addHook('onRoute', applyBodyLimits(deps.config));

  app.decorateRequest('tw', null as unknown as RequestState);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback-style hook: a cached token without limits (the common case) is admitted synchronously, without
  // a promise per request; a cache miss or a token with limits takes the async path.
  app.addHook('onRequest', (req, reply, done) => {
    req.tw = { startedAt: process.hrtime.bigint(), principal: null, model: null, usage: null, amount: 0, upstreamRequestId: null, errorCode: null };
    reply.header(REQUEST_ID_HEADER, req.id);
    if (closing) throw new GatewayError('service_unavailable', 'The gateway is shutting down; retry the request', { headers: { connection: 'close', 'retry-after': '1' } });
    // Authenticate contract paths before the body is parsed: unauthenticated callers get 401 cheaply.
    const path = req.url;
    if (!CONTRACT_PREFIXES.some((p) => path.startsWith(p)) || UNAUTHENTICATED_PREFIXES.some((p) => path.startsWith(p))) return done();
    const credential = credentialFrom(req.headers);
    const principal = deps.tokenAuth.authenticateCached(credential);
    // Same rule as RateLimiter.admit: a token with neither limit has nothing to admit.
    if (principal && principal.rpmLimit === null && principal.concurrencyLimit === null) {
      req.tw.principal = principal;
      return done();
    }
    void (async () => {
      const p = principal ?? (await deps.tokenAuth.authenticate(credential));
      req.tw.principal = p;
      const release = await deps.limiter.admit(p);
      if (release) reply.raw.once('close', release);
    })().then(() => done(), done);
  });

  // Synchronous work (a log line, a buffered row): a callback hook spares a promise per request.
  app.addHook('onResponse', (req, reply, done) => {
    try {
      recordRequest(req, reply);
    } catch (e) {
      done(e as Error);
      return;
    }
    done();
  });
  const access = accessLogger(deps.logger);
  const recordRequest = (req: FastifyRequest, reply: FastifyReply): void => {
    const st = req.tw;
    if (!st) return;
    const latencyMs = Math.round(Number(process.hrtime.bigint() - st.startedAt) / 1e4) / 100;
    const endpoint = req.routeOptions.url ?? req.url.split('?')[0] ?? req.url;
    // The access/audit line: one per request, request id on it, no bodies, no secrets.
    access({ requestId: req.id, method: req.method, path: endpoint, status: reply.statusCode, latencyMs, tokenId: st.principal?.tokenId, model: st.model, errorCode: st.errorCode, upstreamRequestId: st.upstreamRequestId });
    if (!st.principal) return;
    deps.requestLog.write({
      requestId: req.id,
      tokenId: st.principal.tokenId,
      model: st.model,
      endpoint,
      method: req.method,
      status: reply.statusCode,
      latencyMs: Math.round(latencyMs),
      usage: st.usage,
      amount: st.amount,
      upstreamRequestId: st.upstreamRequestId,
      errorCode: st.errorCode,
      createdAt: Date.now(),
    });
  };

  app.setErrorHandler((err, req, reply) => {
    const ge = toGatewayError(err);
    if (ge.code === 'internal_error') req.log.error({ err: String((err as Error)?.stack ?? err) }, 'unhandled error');
    if (!req.tw) req.tw = { startedAt: process.hrtime.bigint(), principal: null, model: null, usage: null, amount: 0, upstreamRequestId: null, errorCode: null };
    reply.header(REQUEST_ID_HEADER, req.id);
    return sendError(req, reply, ge);
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? req.url;
    const allowed = routes.allowed(path);
    if (allowed && !allowed.includes(req.method)) {
      reply.header('allow', allowed.join(', '));
      return sendError(req, reply, new GatewayError('method_not_allowed', `Method ${req.method} is not allowed on ${path}`));
    }
    return sendError(req, reply, new GatewayError('not_found', `Unknown path ${path}`));
  });

  // Bodies are JSON (or multipart where a route registers it): without this, Fastify's built-in
  // text/plain parser would hand routes a string instead of answering 415.
  app.removeContentTypeParser('text/plain');

  // "Can serve" includes the store: a lost database answers 503, so a load balancer stops sending traffic.
  app.get('/healthz', async () => {
    try {
      await sql`select 1`.execute(deps.store.db);
    } catch (e) {
      throw new GatewayError('service_unavailable', 'The database is not reachable', { cause: e });
    }
    return { status: 'ok' };
  });
  let openApi: Record<string, unknown> | null = null;
  app.get('/openapi.json', async () => (openApi ??= openApiDocument(registered)));

  await app.register(async (scope) => registerAdminRoutes(scope, deps), { prefix: '/admin' });
  await app.register(async (scope) => registerFamilyBRoutes(scope, deps), { prefix: '/v1' });
  await app.register(async (scope) => registerFamilyARoutes(scope, deps), { prefix: '/vidx/v1' });
  await app.register(async (scope) => registerFamilyACallbackRoutes(scope, deps), { prefix: '/vidx/callbacks' });

  app.addHook('onClose', async () => {
    await deps.requestLog.flush();
  });
  return app;
}
