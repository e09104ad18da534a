// How the route table's rows are written: a group of Fastify rows under their scope's prefix, or the text lane's rows.
import type { BodyClass } from './body-limits.ts';
import type { FastifyRoute, FastifyRow, LaneRoute, LaneRow, Method, RouteInfo, Scope } from './route-row.ts';

export type Spec = [Method, string, FastifyRoute, BodyClass?];
export type Base = Pick<RouteInfo, 'family' | 'auth' | 'console' | 'rule'> & { scope: Scope };

const join = (prefix: string, path: string) => (prefix + path).replace(/\/$/, '') || '/';

/** Fastify rows, their paths under their scope's prefix. */
export function rows(base: Base, specs: Spec[]): FastifyRow[] {
  return specs.map(([method, path, handler, body]) => ({
    ...base,
    front: 'fastify',
    method,
    path: join(base.scope.prefix, path),
    body: body ?? 'control',
    handler,
  }));
}

/** The text lane's rows: POST, token-authenticated. */
export function lane(family: RouteInfo['family'], specs: Array<[string, LaneRoute, BodyClass]>): LaneRow[] {
  return specs.map(([path, handler, body]) => {
    const row: LaneRow = { family, auth: 'token', front: 'lane', method: 'POST', path, body, handler };
    return row;
  });
}
