import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultSpec } from './faults.ts';

export interface SimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Raw body bytes (empty for GET). */
  raw: Buffer;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  params: Record<string, string>;
  req: IncomingMessage;
  /** Fault selected for this request (status/delay/reset/timeout/malformed are applied before handlers run). */
  fault: FaultSpec | null;
  /** Set when a rate limit admitted the call: the handler reports the tokens the call used (rate-limits.ts). */
  settleTokens?: (used: number) => void;
}

export type SimHandler = (req: SimRequest, res: ServerResponse) => void | Promise<void>;

interface Route {
  method: string;
  re: RegExp;
  keys: string[];
  handler: SimHandler;
}

/** A tiny path router: `/api/v1/tasks/:id` style patterns. */
export class SimRouter {
  private readonly routes: Route[] = [];

  on(method: string, pattern: string, handler: SimHandler): void {
    const keys: string[] = [];
    const src = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z0-9_]+)/g, (_m, k: string) => {
      keys.push(k);
      return '([^/]+)';
    });
    this.routes.push({ method: method.toUpperCase(), re: new RegExp(`^${src}/?$`), keys, handler });
  }

  match(method: string, path: string): { handler: SimHandler; params: Record<string, string> } | null {
    for (const r of this.routes) {
      if (r.method !== method) continue;
      const m = r.re.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      for (const [i, k] of r.keys.entries()) params[k] = decodeURIComponent(m[i + 1] ?? '');
      return { handler: r.handler, params };
    }
    return null;
  }
}
