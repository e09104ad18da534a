// POST /v1/messages — the messages-style protocol (streaming and not) on the upstream's anthropic-compatible path.
// The token may come as `Authorization: Bearer` or `x-api-key` (auth handles both). The client's version/beta
// headers are forwarded in both spellings (the contract's `messages-*` and the official SDK's `anthropic-*`).
import type { ErrorFrame, TextCapability } from '../../../adapters/types.ts';
import { requireBody } from '../../../contracts/fields.ts';
import { MESSAGES_FIELDS, knownFieldsOnly } from '../../../contracts/text-fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { messagesErrorType } from '../../../errors/render.ts';
import { validateMessages } from '../../../core/text-rules.ts';
import { textModel, textRequest } from '../../../core/text.ts';
import type { Exchange } from '../../exchange.ts';
import type { LaneRoute } from '../../front/route-row.ts';
import { sendComplete, sendStream, type StreamDeps } from './text-reply.ts';

/**
 * Messages-style error event, as the official SDK expects it: the same body as the route's error answers
 * (errors/render.ts renderMessages) — the messages type, with the family B fields (code, request id, `param` and
 * `upstream_request_id` when known) beside it.
 */
export const messagesErrorFrame: ErrorFrame = (e, body) => {
  const { type: _familyB, ...rest } = body;
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: messagesErrorType(e.status), ...rest }, request_id: body.request_id })}\n\n`;
};

const PAIRS: Array<[string, string]> = [
  ['messages-version', 'anthropic-version'],
  ['messages-beta', 'anthropic-beta'],
];

/** The longest forwarded header value (characters): a version is a date, a beta list a few names. */
export const MAX_FORWARDED_HEADER = 512;
// Printable ASCII and spaces: what versions and beta names are written in.
const FORWARDABLE = /^[\x20-\x7e]*$/;

/**
 * The client's version and beta headers, the only ones forwarded upstream, each in both spellings. A value too long
 * or not printable is refused (400) before any upstream call: forwarded, it would make the upstream refuse the
 * call (431) on every account.
 */
export function forwardedHeaders(req: Pick<Exchange, 'headers'>): Record<string, string> {
  const out: Record<string, string> = {};
  const get = (n: string) => {
    const v = req.headers[n];
    const text = Array.isArray(v) ? v.join(',') : v;
    if (text !== undefined && (text.length > MAX_FORWARDED_HEADER || !FORWARDABLE.test(text))) {
      throw new GatewayError(
        'invalid_request',
        `Header ${n} must be printable ASCII of at most ${MAX_FORWARDED_HEADER} characters`,
        { param: n },
      );
    }
    return text;
  };
  for (const [neutral, vendor] of PAIRS) {
    const v = get(neutral) ?? get(vendor);
    if (v === undefined) continue;
    out[neutral] = get(neutral) ?? v;
    out[vendor] = get(vendor) ?? v;
  }
  return out;
}

export function messagesRoute(deps: StreamDeps, cap: TextCapability): (ex: Exchange) => Promise<void> {
  return (ex) => {
    const body = knownFieldsOnly(requireBody(ex.body), MESSAGES_FIELDS);
    validateMessages(body);
    const r = textModel(deps, ex, body, (m) => m.entry.capabilities.messages === true, 'the messages API');
    const treq = textRequest(r, body, ex.rawBody);
    const headers = forwardedHeaders(ex);
    if (body.stream === true) return sendStream(deps, ex, r, cap, treq, messagesErrorFrame, headers);
    return sendComplete(deps, ex, r, (o) => cap.complete(treq, o), { headers });
  };
}

/** The text lane's handler, from the app's text adapter. */
export const messages: LaneRoute = ({ deps, text }) => messagesRoute(deps, text.messages);
