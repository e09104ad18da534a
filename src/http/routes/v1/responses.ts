// POST /v1/responses — the responses-style call (streaming and not) on the upstream's responses path.
import type { ErrorFrame, TextCapability } from '../../../adapters/types.ts';
import { requireBody } from '../../../contracts/fields.ts';
import { RESPONSES_FIELDS, knownFieldsOnly } from '../../../contracts/text-fields.ts';
import { validateResponses } from '../../../core/text-rules.ts';
import { textModel, textRequest } from '../../../core/text.ts';
import type { Exchange } from '../../exchange.ts';
import type { LaneRoute } from '../../front/route-row.ts';
import { sendComplete, sendStream, type StreamDeps } from './text-reply.ts';

/** Responses-style error event; OpenAI-style SDKs raise on `event: error` carrying an `error` object. */
const responsesErrorFrame: ErrorFrame = (_e, body) =>
  `event: error\ndata: ${JSON.stringify({ type: 'error', code: body.code, message: body.message, error: body })}\n\n`;

export function responsesRoute(deps: StreamDeps, cap: TextCapability): (ex: Exchange) => Promise<void> {
  return (ex) => {
    const body = knownFieldsOnly(requireBody(ex.body), RESPONSES_FIELDS);
    validateResponses(body);
    const r = textModel(deps, ex, body, (m) => m.entry.capabilities.responses === true, 'the responses API');
    const treq = textRequest(r, body, ex.rawBody);
    // The upstream's session cache is opt-in by header; pass the client's choice on.
    const sc = ex.headers['x-dashscope-session-cache'];
    const headers = typeof sc === 'string' ? { 'x-dashscope-session-cache': sc } : undefined;
    if (body.stream === true) return sendStream(deps, ex, r, cap, treq, responsesErrorFrame, headers);
    return sendComplete(deps, ex, r, (o) => cap.complete(treq, o), headers ? { headers } : {});
  };
}

/** The text lane's handler, from the app's text adapter. */
export const responses: LaneRoute = ({ deps, text }) => responsesRoute(deps, text.responses);
