// /console: the operator console's page and bundle (held in memory) and its session API, with a strict
// Content-Security-Policy on every answer: only this origin's script and style, no inline code, no framing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { consoleAssets } from '../../../console/assets.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { registerSessionRoutes } from './session.ts';

export const CONSOLE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** The app's answer to a request no route took: 405 with Allow for a known path, else `notFound` (app.ts). */
export type UnknownRoute = (req: FastifyRequest, reply: FastifyReply, notFound?: GatewayError) => unknown;

export async function registerConsoleRoutes(scope: FastifyInstance, deps: GatewayDeps, unknownRoute: UnknownRoute): Promise<void> {
  const assets = await consoleAssets();
  scope.addHook('onSend', (_req, reply, payload, done) => {
    reply.headers(CONSOLE_HEADERS);
    done(null, payload);
  });
  const page = assets.get('index.html')!;
  // Every console address is the one page (routing is in the URL's fragment); the page itself is never cached,
  // so a new version's bundle is picked up at once.
  scope.get('/', async (_req, reply) => reply.type(page.type).header('cache-control', 'no-store').send(page.body));
  for (const name of ['app.js', 'app.css']) {
    const a = assets.get(name)!;
    scope.get(`/${name}`, async (_req, reply) => reply.type(a.type).header('cache-control', 'no-cache').send(a.body));
  }
  registerSessionRoutes(scope, deps);
  scope.setNotFoundHandler((req, reply) => unknownRoute(req, reply, new GatewayError('not_found', 'No such console address')));
}
