// One signed POST of an outbox row (client task callbacks, operator alert webhooks): Standard Webhooks headers over the
// exact body, sent through the address-checking agents (loopback/private targets refused at connect time unless the
// operator allows them), and the retry rule both outboxes follow.
import { request } from 'undici';
import { signCallback } from '../auth/callback-secret.ts';
import { findForbidden, type SafeAgents } from './safe-agent.ts';

export interface SignedPost {
  url: string;
  /** The `webhook-id` header: the receiver's dedupe key, the same on every attempt. */
  id: string;
  body: string;
  /**
   * The `whsec_…` secrets, current first; read at each attempt (a rotation signs its retries). Its errors' messages are
   * recorded as they are.
   */
  secrets: () => Promise<readonly string[]>;
  userAgent: string;
  agents: SafeAgents;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
}

export interface PostOutcome {
  /** null: answered 2xx. */
  error: string | null;
  /** The receiver's status, when it answered. */
  status: number | null;
  /** The target is a forbidden address: retrying cannot help. */
  refused: boolean;
  /** The receiver did not connect or answer within the timeout (its host's breaker opens: delivery-pool.ts). */
  timedOut?: boolean;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export async function postSigned(p: SignedPost): Promise<PostOutcome> {
  let secrets: readonly string[];
  try {
    secrets = await p.secrets();
  } catch (e) {
    return { error: (e as Error)?.message ?? String(e), status: null, refused: false };
  }
  const ts = Math.floor(Date.now() / 1000);
  try {
    const res = await request(p.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': p.userAgent,
        'webhook-id': p.id,
        'webhook-timestamp': String(ts),
        'webhook-signature': signCallback(secrets, p.id, ts, p.body),
      },
      body: p.body,
      dispatcher: p.allowPrivateNetwork ? p.agents.permissive : p.agents.strict,
      headersTimeout: p.timeoutMs,
      bodyTimeout: p.timeoutMs,
    });
    await res.body.dump().catch(() => undefined);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return { error: ok ? null : `HTTP ${res.statusCode}`, status: res.statusCode, refused: false };
  } catch (e) {
    const forbidden = findForbidden(e);
    if (forbidden)
      return { error: `refused: the target host resolves to a ${forbidden.reason}`, status: null, refused: true };
    const timedOut = TIMEOUT_CODES.has(String((e as { code?: unknown } | null)?.code));
    return { error: `delivery failed: ${(e as Error)?.message ?? String(e)}`, status: null, refused: false, timedOut };
  }
}

const MAX_BACKOFF_MS = 3600_000;

/**
 * When a failed attempt is tried again: exponential back-off from `backoffBaseMs`, capped at an hour; null: given up.
 */
export function nextTry(
  attempt: number,
  outcome: PostOutcome,
  o: { backoffBaseMs: number; maxAttempts: number },
  now = Date.now(),
): number | null {
  if (outcome.refused || attempt >= o.maxAttempts) return null;
  return now + Math.min(o.backoffBaseMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
}
