// A route-table row is the whole route (src/http/front/route-row.ts): each front serves the rows it is given by
// iterating them — Fastify each in its scope, the text lane its lane rows — with nothing registered anywhere else,
// and both read a JSON body with the one reader (src/http/json-body.ts), refusing what is not JSON in the same words.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayDeps } from '../../../src/core/deps.ts';
import { sendBody } from '../../../src/http/exchange.ts';
import { fastifyFront } from '../../../src/http/front/fastify-front.ts';
import type { Finished } from '../../../src/http/front/record.ts';
import type { RouteParts, RouteRow, Scope } from '../../../src/http/front/route-row.ts';
import { useJsonBodyParser } from '../../../src/http/json-body.ts';
import { TextLane } from '../../../src/http/lane/text-lane.ts';
import { until } from '../../support/wait.ts';

const config = { trustProxy: null, bodyLimit: 64 * 1024, uploadBodyLimit: 64 * 1024, cors: null };
const principal = { tokenId: 'tok_rows', rpmLimit: null, tpmLimit: null, concurrencyLimit: null };
// What the fronts read of the gateway's parts for a route that needs no store: a token that is always admitted.
const deps = {
  config,
  tracing: null,
  logger: pino({ level: 'silent' }),
  tokenAuth: { authenticateCached: () => principal },
} as unknown as GatewayDeps;
const parts = { deps, rows: [], consoleFiles: new Map() } as unknown as RouteParts;

/** A scope of its own: its setup's header on every answer shows its rows were registered inside it. */
const scope: Scope = {
  prefix: '/rows',
  setup: (s) => {
    s.addHook('onSend', (_req, reply, payload, done) => {
      reply.header('x-scope', 'rows');
      done(null, payload);
    });
  },
};

const rows: RouteRow[] = [
  {
    method: 'POST',
    path: '/rows/echo',
    family: 'v1',
    body: 'control',
    auth: 'none',
    front: 'fastify',
    scope,
    handler: () => async (req) => ({ fastify: req.body }),
  },
  {
    method: 'POST',
    path: '/rows/lane',
    family: 'v1',
    body: 'chat',
    auth: 'token',
    front: 'lane',
    handler: () => async (ex) => sendBody(ex, 200, JSON.stringify({ lane: ex.body })),
  },
];

const records: Finished[] = [];
let app: FastifyInstance;
let url = '';

beforeAll(async () => {
  const front = fastifyFront(deps, { closing: false }, (f) => records.push(f), rows);
  const lane = new TextLane({ closing: false }, (f) => records.push(f), rows, parts);
  app = Fastify({
    serverFactory: (handler) => createServer((req, res) => lane.serve(req, res) || handler(req, res)),
  });
  front.install(app);
  app.removeContentTypeParser('text/plain');
  useJsonBodyParser(app, 'refuse', config);
  await front.register(app, parts);
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${((app.server as Server).address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
});

const post = async (path: string, body: string) => {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-rows' },
    body,
  });
  return { status: r.status, scope: r.headers.get('x-scope'), body: (await r.json()) as Record<string, unknown> };
};

describe('a row is the whole route', () => {
  it("Fastify serves a row by its handler, inside its scope, with no registration line of its own; its request's one record", async () => {
    const before = records.length;
    const r = await post('/rows/echo', '{"a":1}');
    expect(r).toEqual({ status: 200, scope: 'rows', body: { fastify: { a: 1 } } });
    await until(() => records.length > before, 'the request is recorded');
    expect(records).toHaveLength(before + 1);
    expect(records.at(-1)).toMatchObject({ method: 'POST', endpoint: '/rows/echo', status: 200 });
  });

  it('the text lane serves a lane row by its handler, ahead of Fastify (outside its scopes)', async () => {
    const before = records.length;
    const r = await post('/rows/lane', '{"b":2}');
    expect(r).toEqual({ status: 200, scope: null, body: { lane: { b: 2 } } });
    await until(() => records.length > before, 'the request is recorded');
    expect(records).toHaveLength(before + 1);
    expect(records.at(-1)).toMatchObject({ method: 'POST', endpoint: '/rows/lane', status: 200 });
  });

  it('both fronts refuse a body that is not JSON, and an empty one, in the same words (the one reader)', async () => {
    const messages = new Set<unknown>();
    for (const path of ['/rows/echo', '/rows/lane'])
      for (const body of ['{"a":', '']) {
        const r = await post(path, body);
        expect({ path, body, status: r.status }).toEqual({ path, body, status: 400 });
        const error = r.body.error as Record<string, unknown>;
        expect(error.code).toBe('invalid_json');
        messages.add(String(error.message).replace(/ \(request id: [\w-]+\)$/, ''));
      }
    expect([...messages]).toEqual(['Request body is not valid JSON']);
  });
});
