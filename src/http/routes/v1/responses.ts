// POST /v1/responses — the responses-style call (streaming and not) on the upstream's responses path.
import type { ErrorFrame, TextCapability, TextRequest } from '../../../adapters/types.ts';
import { requireBody } from '../../../contracts/fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { AppDeps } from '../../deps.ts';
import type { Exchange } from '../../exchange.ts';
import { prepare, sendComplete, sendStream } from './text-call.ts';

/** Responses-style error event; OpenAI-style SDKs raise on `event: error` carrying an `error` object. */
const responsesErrorFrame: ErrorFrame = (_e, body) =>
  `event: error\ndata: ${JSON.stringify({ type: 'error', code: body.code, message: body.message, error: body })}\n\n`;

function validate(body: Record<string, unknown>): void {
  const input = body.input;
  if (input === undefined || input === null) throw new GatewayError('missing_parameter', 'input is required', { param: 'input' });
  if (typeof input !== 'string' && (!Array.isArray(input) || input.length === 0)) {
    throw new GatewayError('invalid_parameter', 'input must be a string or a non-empty array of items', { param: 'input' });
  }
  if (body.background === true) throw new GatewayError('invalid_parameter', 'background responses are not supported', { param: 'background' });
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw new GatewayError('invalid_parameter', 'stream must be a boolean', { param: 'stream' });
}

export function responsesRoute(deps: AppDeps, cap: TextCapability): (req: Exchange) => Promise<void> {
  return async (req) => {
    const body = requireBody(req.body);
    validate(body);
    const prepared = prepare(deps, req, body, (r) => r.entry.capabilities.responses === true, 'the responses API');
    const prep = prepared instanceof Promise ? await prepared : prepared;
    const treq: TextRequest = { body, upstreamModel: prep.r.upstreamModel, publicModel: prep.r.publicName, raw: req.rawBody };
    // The upstream's session cache is opt-in by header; pass the client's choice on.
    const sc = req.headers['x-dashscope-session-cache'];
    const headers = typeof sc === 'string' ? { 'x-dashscope-session-cache': sc } : undefined;
    if (body.stream === true) return sendStream(deps, req, prep, cap, treq, responsesErrorFrame, headers);
    return sendComplete(deps, req, prep, (o) => cap.complete(treq, o), headers ? { headers } : {});
  };
}
