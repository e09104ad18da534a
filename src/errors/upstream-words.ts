// Upstream words never reach a client: an upstream refusal is answered with our catalogue code and our own message
// (its readable meaning: "the upstream refused the value of duration"), while the upstream's own status, code and
// message — which may name its models (kling-…, qwen-…), hosts or our internal ids — go to the request's log line
// and request-log row only (GatewayError.upstreamMessage; http/front/life.ts noteError).
import type { ErrorCode } from './codes.ts';

/** The longest upstream text kept for operators. */
export const UPSTREAM_WORDS_MAX = 1000;

/** The upstream's own words for operators: `HTTP <status> <code>: <message>`, bounded. */
export function upstreamWords(status: number, code: string | number | undefined, message: string | undefined): string {
  const text = `HTTP ${status}${code === undefined || code === '' ? '' : ` ${code}`}${message ? `: ${message.trim()}` : ''}`;
  return text.length > UPSTREAM_WORDS_MAX ? `${text.slice(0, UPSTREAM_WORDS_MAX - 1)}…` : text;
}

/**
 * The public request field an upstream message is about, when it can be told safely: the first of `fields` (upstream
 * field name → the client's name for it) the message names as a whole word. Undefined otherwise.
 */
export function inferParam(message: string | undefined, fields: Readonly<Record<string, string>>): string | undefined {
  if (!message) return undefined;
  let best: { at: number; name: string } | undefined;
  for (const [upstream, name] of Object.entries(fields)) {
    const m = new RegExp(`(?<![A-Za-z0-9_])${upstream.replace(/[.]/g, '\\.')}(?![A-Za-z0-9_])`).exec(message);
    if (m && (best === undefined || m.index < best.at)) best = { at: m.index, name };
  }
  return best?.name;
}

/** Our message for an upstream refusal of this catalogue code (the parameter named when it is known). */
export function refusalMessage(code: ErrorCode, param?: string): string {
  switch (code) {
    case 'upstream_invalid_request':
      return param ? `The upstream refused the value of ${param}` : 'The upstream refused a parameter of the request';
    case 'upstream_auth_error':
      return 'Upstream rejected the gateway credentials (operator: check the channel keys)';
    case 'upstream_permission_denied':
      return 'Upstream permission denied (operator: check model activation, key permission and IP whitelist)';
    case 'upstream_rate_limited':
      return 'Upstream rate limit exceeded; retry later';
    case 'concurrency_limited':
      return 'Upstream concurrency limit reached (too many running tasks)';
    case 'upstream_content_filtered':
      return 'Upstream content policy rejected the request';
    case 'not_found':
      return 'Upstream resource not found';
    case 'upstream_timeout':
      return 'The upstream did not answer in time';
    case 'upstream_unavailable':
      return 'The upstream is temporarily unavailable; retry later';
    default:
      return 'Upstream error';
  }
}
