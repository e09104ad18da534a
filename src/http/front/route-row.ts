// What a route-table row is (route-table.ts): how its route is reached and answered, and its handler. Each front
// registers its rows by iterating the table: the text lane its lane rows, Fastify the others, each in its scope.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { DashscopeTextAdapter } from '../../adapters/dashscope/compat-chat-adapter.ts';
import type { ConsoleAsset } from '../../console/assets.ts';
import type { GatewayDeps } from '../../core/deps.ts';
import type { VidxContext } from '../../core/vidx/context.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { Family } from '../../errors/render.ts';
import type { Exchange } from '../exchange.ts';
import type { RouteRule } from '../../core/staff/roles.ts';
import type { BodyClass } from './body-limits.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * token: a client token, admitted by the front; admin: the admin key or a console session (routes/admin/admin-auth.ts);
 * metrics: GET /metrics's bearer (routes/ops.ts); session: the console's sign-in (the admin key in the body) and its
 * session cookie (routes/console/session.ts); member: a customer account member's portal session cookie
 * (routes/portal/index.ts); member-signin: the portal's sign-in with a member key (routes/portal/session.ts); none.
 */
export type Auth = 'token' | 'admin' | 'metrics' | 'session' | 'member' | 'member-signin' | 'none';

/** How a route is reached and answered: what the OpenAPI document, the 405 table and the body limits read. */
export interface RouteInfo {
  method: Method;
  /** Fastify's syntax (`:id`), no trailing slash. */
  path: string;
  family: Family;
  body: BodyClass;
  auth: Auth;
  /** lane: served by the text lane, straight from node:http; fastify: registered on Fastify. */
  front: 'lane' | 'fastify';
  /** Registered only with the console on (TOLLWAY_CONSOLE). */
  console?: true;
  /**
   * An admin route's rule: the area the staff role check reads (core/staff/roles.ts). Every admin row has one; an
   * admin route without one is refused to every role.
   */
  rule?: RouteRule;
}

/** What the handlers are made from, once, as the server is built (http/app.ts). */
export interface RouteParts {
  deps: GatewayDeps;
  /** The DashScope text adapter behind the text lane's routes. */
  text: DashscopeTextAdapter;
  /** What every /vidx route shares. */
  vidx: VidxContext;
  /** The rows this server serves (its OpenAPI document's). */
  rows: readonly RouteInfo[];
  /** The console's files by name (none with the console off). */
  consoleFiles: ReadonlyMap<string, ConsoleAsset>;
}

export type LaneHandler = (ex: Exchange) => Promise<void>;
export type FastifyHandler = (req: FastifyRequest, reply: FastifyReply) => unknown;
/** A row's handler maker: called once per server with its parts. */
export type LaneRoute = (p: RouteParts) => LaneHandler;
export type FastifyRoute = (p: RouteParts) => FastifyHandler;

/** A Fastify route's handler maker, from a handler typed with its route's params and query (`G`). */
export function fastifyRoute<G extends RouteGenericInterface = RouteGenericInterface>(
  make: (p: RouteParts) => (req: FastifyRequest<G>, reply: FastifyReply) => unknown,
): FastifyRoute {
  // `G` only names what the router puts in params and query, as Fastify's own route<G>() does: the row's path says so.
  return make as unknown as FastifyRoute;
}

/** The app's answer to a request no route took: 405 with Allow for a known path, else `notFound` (404). */
export type UnknownRoute = (req: FastifyRequest, reply: FastifyReply, notFound?: GatewayError) => unknown;

/** A path prefix whose Fastify routes share hooks, body parsers and a 404 answer (one Fastify plugin scope). */
export interface Scope {
  prefix: string;
  setup?: (scope: FastifyInstance, p: RouteParts, unknownRoute: UnknownRoute) => void | Promise<void>;
}

export type LaneRow = RouteInfo & { front: 'lane'; handler: LaneRoute };
export type FastifyRow = RouteInfo & { front: 'fastify'; scope: Scope; handler: FastifyRoute };
export type RouteRow = LaneRow | FastifyRow;
