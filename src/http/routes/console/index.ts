// /console: the operator console's page and bundle (held in memory) and its session API, with a strict
// Content-Security-Policy on every answer: only this origin's script and style, no inline code, no framing.
import { GatewayError } from '../../../errors/gateway-error.ts';
import { fastifyRoute, type FastifyRoute, type Scope } from '../../front/route-row.ts';

export const CONSOLE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Every console answer carries CONSOLE_HEADERS; an unknown console address is the console's own 404. */
export const CONSOLE_SCOPE: Scope = {
  prefix: '/console',
  setup(scope, _parts, unknownRoute) {
    scope.addHook('onSend', (_req, reply, payload, done) => {
      reply.headers(CONSOLE_HEADERS);
      done(null, payload);
    });
    scope.setNotFoundHandler((req, reply) =>
      unknownRoute(req, reply, new GatewayError('not_found', 'No such console address')),
    );
  },
};

/**
 * One of the console's files. Every console address is the one page (routing is in the URL's fragment); the page
 * itself is never cached, so a new version's bundle is picked up at once.
 */
const file = (name: string, cache: string): FastifyRoute =>
  fastifyRoute(({ consoleFiles }) => {
    const a = consoleFiles.get(name)!;
    return async (_req, reply) => reply.type(a.type).header('cache-control', cache).send(a.body);
  });

export const page = file('index.html', 'no-store');
export const script = file('app.js', 'no-cache');
export const style = file('app.css', 'no-cache');
