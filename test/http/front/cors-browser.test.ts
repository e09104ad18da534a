// CORS as a browser enforces it (Debian chromium through playwright-core): a page of an allowed origin calls the
// text lane, the Fastify front and the messages route with the headers the official SDKs send, and reads the
// answers and the exposed request id headers; a page of another origin is refused by the browser.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.ts';

const CHROMIUM = '/usr/bin/chromium';

let h: Harness;
let token = '';
let browser: Browser;
const pages: Server[] = [];

/** A server of one empty page: its origin is what the browser sends as Origin. */
async function pageServer(): Promise<string> {
  const s = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>client</title>');
  });
  pages.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

let allowed = '';
let other = '';

beforeAll(async () => {
  allowed = await pageServer();
  other = await pageServer();
  h = await startHarness({ env: { TOLLWAY_CORS_ORIGINS: allowed } });
  token = (await h.token()).secret;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
  for (const s of pages) await new Promise<void>((resolve) => s.close(() => resolve()));
});

interface Seen {
  status?: number;
  requestId?: string | null;
  gatewayId?: string | null;
  body?: unknown;
  blocked?: string;
}

/** fetch() from a page of `origin`, as a browser client would call the gateway. */
async function fromPage(
  origin: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown },
): Promise<Seen> {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(
      async ({ url, method, headers, body }) => {
        try {
          const r = await fetch(url, {
            method,
            headers,
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return {
            status: r.status,
            requestId: r.headers.get('x-request-id'),
            gatewayId: r.headers.get('x-gateway-request-id'),
            body: await r.json(),
          };
        } catch (e) {
          return { blocked: String(e) };
        }
      },
      { url: h.url + path, method: init.method ?? 'GET', headers: init.headers ?? {}, body: init.body },
    );
  } finally {
    await page.close();
  }
}

const chat = () => ({
  method: 'POST',
  headers: {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    'x-stainless-lang': 'js',
    'x-stainless-retry-count': '0',
  },
  body: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }] },
});

describe('CORS in a real browser', () => {
  it('an allowed origin: a chat call (text lane) with the SDK headers, the answer and the exposed request ids readable', async () => {
    const seen = await fromPage(allowed, '/v1/chat/completions', chat());
    expect(seen.blocked).toBeUndefined();
    expect(seen.status).toBe(200);
    expect((seen.body as { object: string }).object).toBe('chat.completion');
    expect(seen.requestId).toMatch(/^req_/);
    expect(seen.gatewayId).toBe(seen.requestId);
  });

  it('an allowed origin: the model list (Fastify) and a messages call with x-api-key and anthropic headers', async () => {
    const models = await fromPage(allowed, '/v1/models', { headers: { authorization: `Bearer ${token}` } });
    expect(models.status).toBe(200);
    const msg = await fromPage(allowed, '/v1/messages', {
      method: 'POST',
      headers: {
        'x-api-key': token,
        'anthropic-version': '2023-06-01',
        'anthropic-dangerous-direct-browser-access': 'true',
        'content-type': 'application/json',
      },
      body: { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(msg.status).toBe(200);
    expect((msg.body as { type: string }).type).toBe('message');
  });

  it('an allowed origin reads an error answer too (status, body, request id)', async () => {
    const seen = await fromPage(allowed, '/v1/chat/completions', {
      ...chat(),
      headers: { ...chat().headers, authorization: 'Bearer tw-wrong-000000000000000' },
    });
    expect(seen.status).toBe(401);
    expect((seen.body as { error: { request_id: string } }).error.request_id).toBe(seen.requestId);
  });

  it('another origin: the browser refuses the answer', async () => {
    const seen = await fromPage(other, '/v1/chat/completions', chat());
    expect(seen.blocked).toMatch(/TypeError/);
    const simple = await fromPage(other, '/v1/models', {});
    expect(simple.blocked).toMatch(/TypeError/);
  });
});
