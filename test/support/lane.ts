// Calls to the text lane's chat route, and its answers read as fetch Responses.
import type { request } from 'undici';
import { expect } from 'vitest';
import { RID } from './error-shapes.ts';

export const CHAT = '/v1/chat/completions';
export const chat = (content: string) => ({ model: 'qwx3.7-plus', messages: [{ role: 'user', content }] });

/** An undici answer as a fetch Response (so expectB applies). */
export async function asResponse(r: Awaited<ReturnType<typeof request>>): Promise<Response> {
  const text = await r.body.text();
  const headers = new Headers();
  for (const [k, v] of Object.entries(r.headers))
    if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  return new Response(text, { status: r.statusCode, headers });
}

export async function expectChatOk(r: Response): Promise<string> {
  expect(r.status).toBe(200);
  const rid = r.headers.get('x-gateway-request-id');
  expect(rid).toMatch(RID);
  const body = (await r.json()) as { object?: string; choices?: unknown[] };
  expect(body.object).toBe('chat.completion');
  expect(body.choices?.length).toBeGreaterThan(0);
  return rid!;
}
