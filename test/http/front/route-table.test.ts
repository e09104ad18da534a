// The one route table (src/http/front/route-table.ts): every row is registered on its front, documented in the
// OpenAPI document with its family's error shape and its authentication, and answered with that authentication and
// family; a Fastify route without a row stops the start.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { GatewayDeps } from '../../../src/core/deps.ts';
import { fastifyFront, isRegistered } from '../../../src/http/front/fastify-front.ts';
import { activeRoutes, ROUTES, type RouteRow } from '../../../src/http/front/route-table.ts';
import { useHarness } from '../../support/harness.ts';

const ctx = useHarness({ env: { TOLLWAY_TASK_POLLER: 'false', TOLLWAY_CONSOLE: 'true' } });

const concrete = (row: RouteRow) => row.path.replace(/:[A-Za-z0-9_]+/g, 'x0');
const ERROR_REF: Record<RouteRow['family'], string> = {
  v1: 'FamilyBError',
  messages: 'MessagesError',
  vidx: 'FamilyAError',
};

type Op = { security?: Array<Record<string, unknown>>; responses: Record<string, { $ref?: string }> };

describe('the route table', () => {
  it('every row is active with the console on, and its paths and methods are unique', () => {
    expect(activeRoutes(true)).toHaveLength(ROUTES.length);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(ROUTES.length);
    expect(
      ROUTES.filter((r) => r.front === 'lane')
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/v1/chat/completions', '/v1/embeddings', '/v1/messages', '/v1/responses']);
  });

  it('every Fastify row is registered; a lane row is served ahead of Fastify (not registered there)', () => {
    const app = ctx.h.gw.app;
    for (const r of ROUTES)
      expect({ row: `${r.method} ${r.path}`, registered: isRegistered(app, r) }).toEqual({
        row: `${r.method} ${r.path}`,
        registered: r.front === 'fastify',
      });
  });

  it("every row is documented in OpenAPI, with its authentication and its family's error shape", async () => {
    const doc = (await (await ctx.h.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, Op>> };
    const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
    const byShape = new Map(Object.keys(doc.paths).map((p) => [shape(p), doc.paths[p]!]));
    for (const r of ROUTES.filter((x) => !x.console)) {
      const op = byShape.get(shape(r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')))?.[r.method.toLowerCase()];
      const where = `${r.method} ${r.path}`;
      expect(op, where).toBeDefined();
      if (r.auth === 'token') {
        expect(op!.security, where).toEqual([{ bearer: [] }]);
        expect(op!.responses['401']?.$ref, where).toBe(`#/components/responses/${ERROR_REF[r.family]}`);
      }
      if (r.auth === 'admin') expect(op!.security, where).toEqual([{ adminBearer: [] }]);
    }
    // Nothing documented that the table does not have.
    const rows = new Set(
      ROUTES.map((r) => `${r.method.toLowerCase()} ${shape(r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'))}`),
    );
    for (const [p, ops] of Object.entries(doc.paths))
      for (const m of Object.keys(ops)) expect(rows.has(`${m} ${shape(p)}`), `${m} ${p}`).toBe(true);
  });

  it("every row answers with its authentication and in its family's shape: no credential → 401 where one is needed", async () => {
    for (const r of ROUTES) {
      const withBody = r.method !== 'GET' && r.method !== 'DELETE';
      const init: RequestInit = {
        method: r.method,
        headers: { origin: ctx.h.url, ...(withBody ? { 'content-type': 'application/json' } : {}) },
        ...(withBody ? { body: '{}' } : {}),
      };
      const res = await fetch(`${ctx.h.url}${concrete(r)}`, init);
      const text = await res.text();
      const where = `${r.method} ${r.path}: ${res.status} ${text.slice(0, 120)}`;
      if (r.auth === 'none') {
        expect(res.status, where).not.toBe(401);
        continue;
      }
      // The console's and the portal's sign-in refuse a missing key in their own way (400) and signing out without a
      // session is done already (204); reading the session wants its cookie (401).
      if ((r.auth === 'session' || r.auth === 'member-signin') && r.method !== 'GET') continue;
      expect(res.status, where).toBe(401);
      const body = JSON.parse(text) as Record<string, unknown>;
      const rid = res.headers.get('x-gateway-request-id');
      if (r.family === 'vidx') expect(body, where).toMatchObject({ request_id: rid, data: null });
      else if (r.family === 'messages')
        expect(body, where).toMatchObject({ type: 'error', error: { request_id: rid } });
      else expect(body, where).toMatchObject({ error: { request_id: rid } });
    }
  });

  it('a Fastify route without a row stops the start', async () => {
    const deps = {
      config: { trustProxy: null, bodyLimit: 1024, uploadBodyLimit: 1024 },
      tracing: null,
    } as unknown as GatewayDeps;
    const app = Fastify();
    fastifyFront(deps, { closing: false }, () => undefined, []).install(app);
    expect(() => app.get('/v1/not-in-the-table', async () => ({}))).toThrow(/not a Fastify route of the route table/);
    await app.close();
  });

  it('a row without its route stops the start', async () => {
    const deps = {
      config: { trustProxy: null, bodyLimit: 1024, uploadBodyLimit: 1024 },
      tracing: null,
    } as unknown as GatewayDeps;
    const app = Fastify();
    fastifyFront(
      deps,
      { closing: false },
      () => undefined,
      ROUTES.filter((r) => r.path === '/healthz'),
    ).install(app);
    await expect(app.ready()).rejects.toThrow(/not registered: GET \/healthz/);
  });
});
