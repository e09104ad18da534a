// POST /v1/messages — the messages-style protocol (streaming and not) on the upstream's anthropic-compatible path.
// The token may come as `Authorization: Bearer` or `x-api-key` (auth handles both). The client's version/beta
// headers are forwarded in both spellings (the contract's `messages-*` and the official SDK's `anthropic-*`).
import type { ErrorFrame, TextCapability, TextRequest } from '../../../adapters/types.ts';
import { isObject, requireBody } from '../../../contracts/fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { AppDeps } from '../../deps.ts';
import type { Exchange } from '../../exchange.ts';
import { prepare, sendComplete, sendStream } from './text-call.ts';

/**
 * Messages-style error event, as the official SDK expects it (`{type:"error", error:{type, message}}`), with the
 * family B fields beside them: code, request id, and `param` / `upstream_request_id` when known (contract 7.2).
 */
export const messagesErrorFrame: ErrorFrame = (e, body) =>
  `event: error\ndata: ${JSON.stringify({
    type: 'error',
    error: {
      type: e.status >= 500 ? 'api_error' : body.type,
      message: body.message,
      code: body.code,
      request_id: body.request_id,
      ...(body.param !== undefined ? { param: body.param } : {}),
      ...(body.upstream_request_id !== undefined ? { upstream_request_id: body.upstream_request_id } : {}),
    },
  })}\n\n`;

const PAIRS: Array<[string, string]> = [
  ['messages-version', 'anthropic-version'],
  ['messages-beta', 'anthropic-beta'],
];

export function forwardedHeaders(req: Pick<Exchange, 'headers'>): Record<string, string> {
  const out: Record<string, string> = {};
  const get = (n: string) => {
    const v = req.headers[n];
    return Array.isArray(v) ? v.join(',') : v;
  };
  for (const [neutral, vendor] of PAIRS) {
    const v = get(neutral) ?? get(vendor);
    if (v === undefined) continue;
    out[neutral] = get(neutral) ?? v;
    out[vendor] = get(vendor) ?? v;
  }
  return out;
}

function validate(body: Record<string, unknown>): void {
  if (body.max_tokens === undefined || body.max_tokens === null) throw new GatewayError('missing_parameter', 'max_tokens is required', { param: 'max_tokens' });
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    throw new GatewayError('invalid_parameter', 'max_tokens must be a positive integer', { param: 'max_tokens' });
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new GatewayError('invalid_parameter', 'messages must be a non-empty array', { param: 'messages' });
  // Contract 2.5: each item has a role and a content (a string or an array of content blocks).
  for (const m of body.messages) {
    if (!isObject(m) || typeof m.role !== 'string' || m.role === '') throw new GatewayError('invalid_parameter', 'each message must be an object with a role', { param: 'messages' });
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) throw new GatewayError('invalid_parameter', 'each message needs a content: a string or an array of content blocks', { param: 'messages' });
    if (Array.isArray(m.content) && !m.content.every((b) => isObject(b) && typeof b.type === 'string')) {
      throw new GatewayError('invalid_parameter', 'each content block must be an object with a type', { param: 'messages' });
    }
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw new GatewayError('invalid_parameter', 'stream must be a boolean', { param: 'stream' });
}

export function messagesRoute(deps: AppDeps, cap: TextCapability): (req: Exchange) => Promise<void> {
  return async (req) => {
    const body = requireBody(req.body);
    validate(body);
    const prepared = prepare(deps, req, body, (r) => r.entry.capabilities.messages === true, 'the messages API');
    const prep = prepared instanceof Promise ? await prepared : prepared;
    const treq: TextRequest = { body, upstreamModel: prep.r.upstreamModel, publicModel: prep.r.publicName, raw: req.rawBody };
    const headers = forwardedHeaders(req);
    if (body.stream === true) return sendStream(deps, req, prep, cap, treq, messagesErrorFrame, headers);
    return sendComplete(deps, req, prep, (o) => cap.complete(treq, o), { headers });
  };
}
