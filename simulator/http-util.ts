import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function requestId(): string {
  return randomUUID();
}

/** Rough deterministic token count: ~4 characters a token, at least 1 for non-empty text. */
export function countTokens(text: string): number {
  if (!text) return 0;
  return Math.max(1, Math.ceil(text.length / 4));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
