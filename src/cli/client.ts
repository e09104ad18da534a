// The CLI's way to the gateway: the admin API over HTTP, so every rule (validation, private-network policy, the
// caller's staff role) is the running server's, never a second copy with the CLI's own environment.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A refusal from the admin API: its status, code, message and the request id to quote. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

/** The gateway could not be reached at all (nothing listening, a wrong host). */
export class Unreachable extends Error {}

/** A wrong command line: exit code 2 (commander's own errors take the same path). */
export class UsageError extends Error {}

export type Query = Record<string, string | number | undefined>;

export interface AdminClient {
  readonly url: string;
  call(method: string, path: string, opts?: { query?: Query; body?: unknown }): Promise<unknown>;
  /** A GET whose answer is not JSON (a bill as CSV). */
  text(path: string, query?: Query): Promise<string>;
}

export interface Target {
  url?: string | undefined;
  key?: string | undefined;
}

/** The server's address: --url, else TOLLWAY_URL, else this host on the server's own port (PORT, default 8080). */
export function gatewayUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = flag ?? env.TOLLWAY_URL?.trim() ?? '';
  if (url) return url.replace(/\/+$/, '');
  return `http://127.0.0.1:${env.PORT?.trim() || '8080'}`;
}

/**
 * The key: --key, else TOLLWAY_KEY (a personal staff key, `tws-…`), else TOLLWAY_ADMIN_KEY, else the admin key a
 * gateway on this host keeps in its data dir (read, never created: that is the server's to do).
 */
export function adminKey(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const given = flag ?? (env.TOLLWAY_KEY?.trim() || env.TOLLWAY_ADMIN_KEY?.trim());
  if (given) return given;
  const file = join(resolve(env.TOLLWAY_DATA_DIR?.trim() || './data'), 'admin-key');
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (kept) return kept;
  throw new UsageError(
    'no admin key: pass --key, or set TOLLWAY_KEY (your staff key, tws-…) or TOLLWAY_ADMIN_KEY, or run where the gateway keeps its data dir',
  );
}

const queryString = (q: Query | undefined): string => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q ?? {})) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
};

interface ErrorBody {
  error?: { message?: string; code?: string; request_id?: string };
}

async function refusal(res: Response): Promise<ApiError> {
  const rid = res.headers.get('x-gateway-request-id');
  const text = await res.text();
  let body: ErrorBody = {};
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // Not the gateway's JSON (a proxy's page): the status alone says what happened.
  }
  const e = body.error;
  return new ApiError(
    res.status,
    e?.code ?? `http_${res.status}`,
    e?.message ?? `HTTP ${res.status}`,
    e?.request_id ?? rid,
  );
}

/** Why fetch failed, in a person's words: the underlying cause (ECONNREFUSED, ENOTFOUND …) rather than "fetch failed". */
function unreachable(url: string, e: unknown): Unreachable {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  const code = (cause as { code?: unknown } | null)?.code;
  const why = code === 'ECONNREFUSED' ? 'connection refused' : typeof code === 'string' ? code : String(cause);
  return new Unreachable(
    `cannot reach the gateway at ${url} (${why}); is it running? Set the address with --url or TOLLWAY_URL`,
  );
}

export function adminClient(url: string, key: string): AdminClient {
  const send = async (method: string, path: string, query?: Query, body?: unknown): Promise<Response> => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${url}/admin${path}${queryString(query)}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (e) {
      throw unreachable(url, e);
    }
    if (!res.ok) throw await refusal(res);
    return res;
  };
  return {
    url,
    async call(method, path, opts = {}) {
      const res = await send(method, path, opts.query, opts.body);
      return res.status === 204 ? null : ((await res.json()) as unknown);
    },
    async text(path, query) {
      return (await send('GET', path, query)).text();
    },
  };
}
