import { createServer } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { GatewayDeps, AppParts } from '../core/deps.ts';
import { newRequestId } from './request-id.ts';
import type { RequestState } from './request-state.ts';
import { useJsonBodyParser } from './json-body.ts';
import { clientErrorHandler, connectRefused, expectationFailed, missingHost } from './client-error.ts';
import { TextLane } from './lane/text-lane.ts';
import type { Drain } from './front/life.ts';
import { fastifyFront } from './front/fastify-front.ts';
import { requestRecorder } from './front/record.ts';
import { activeRoutes } from './front/route-table.ts';
import type { RouteParts } from './front/route-row.ts';
import { consoleAssets } from '../console/assets.ts';

export async function buildApp(deps: GatewayDeps, parts: AppParts): Promise<FastifyInstance> {
  const drain: Drain = { closing: false };
  const record = requestRecorder(deps);
  const rows = activeRoutes(deps.config.console.enabled);
  const consoleFiles = deps.config.console.enabled ? await consoleAssets() : new Map<string, never>();
  const routeParts: RouteParts = { deps, text: parts.text, vidx: parts.vidx, rows, consoleFiles };
  const lane = new TextLane(drain, record, rows, routeParts);
  const front = fastifyFront(deps, drain, record, rows);
  const app = Fastify({
    // The text lane takes its routes straight from node:http; everything else goes to Fastify.
    serverFactory: (handler) => {
      // A request not received in time is cut, checked every second rather than node's default 30 s.
      const timeoutMs = deps.config.requestTimeoutMs;
      // requireHostHeader off: node's own refusal is a bare 400; missingHost answers it in the family's shape.
      const server = createServer(
        {
          requestTimeout: timeoutMs,
          headersTimeout: Math.min(timeoutMs, 60_000),
          connectionsCheckingInterval: Math.min(1_000, timeoutMs),
          requireHostHeader: false,
        },
        (req, res) => {
          if (!lane.serve(req, res) && !missingHost(req, res)) handler(req, res);
        },
      );
      // What Fastify sets on a server it creates itself (its keep-alive default outlives common load balancers').
      server.keepAliveTimeout = 72_000;
      // Answered by node before any route: in the family's shape with a request id, like the parser's refusals.
      server.on('checkExpectation', expectationFailed);
      server.on('connect', connectRefused);
      return server;
    },
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    // Our own access line (the request's record: front/life.ts) replaces Fastify's two per-request lines.
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
    frameworkErrors: front.badUrl,
  });
  front.install(app);
  // A request's metrics are labelled with its route; a path that matched none is not a label (metrics.ts).
  const routeUrls = new Set(rows.flatMap((r) => [r.path, `${r.path}/`]));
  deps.metrics.knowRoutes((path) => routeUrls.has(path));
  app.decorateRequest('state', null as unknown as RequestState);
  app.addHook('preClose', async () => {
    drain.closing = true;
  });

  // Bodies are JSON (or multipart where a route registers it): without this, Fastify's built-in
  // text/plain parser would hand routes a string instead of answering 415.
  app.removeContentTypeParser('text/plain');
  // The lane's JSON body reader on Fastify's routes too (json-body.ts): the same refusals, in the same words.
  useJsonBodyParser(app, 'refuse', deps.config);

  // Every Fastify row of the table, each in its scope (front/fastify-front.ts).
  await front.register(app, routeParts);

  app.addHook('onClose', async () => {
    await deps.requestLog.flush();
  });
  return app;
}
