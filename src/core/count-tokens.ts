// POST /v1/messages/count_tokens: how many input tokens a messages call with this body would carry. The upstream's
// messages-compatible endpoint offers no token count, so the gateway estimates locally with the rule it uses when
// an upstream reports no usage (charge.ts): the characters of the string values of `system`, `messages` and
// `tools`, four to a token and rounded up, plus 258 tokens for each image or document block. No upstream call is
// made and nothing is charged; the call is a request like any other for the token's rate limit and request log.
import { isObject, type JsonObject } from '../json/json.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CallContext } from './call.ts';
import { estimateUsage, inputSize } from './text-estimate.ts';
import { resolveVisibleModel, type ModelAccessDeps } from './model-access.ts';
import { validateMessageList } from './text-rules.ts';

export interface TokenCount {
  input_tokens: number;
}

/** The estimate alone (the documented rule), for a validated body. */
export function estimateMessageTokens(body: JsonObject): number {
  const size = { chars: 0, media: 0 };
  for (const key of ['system', 'messages', 'tools'] as const) inputSize(body[key], size);
  return estimateUsage(size, 0).inputTokens;
}

export function countMessageTokens(deps: ModelAccessDeps, call: CallContext, body: JsonObject): TokenCount {
  const r = resolveVisibleModel(deps, call, body.model);
  if (r.entry.capabilities.messages !== true)
    throw new GatewayError('model_not_supported', `The model '${r.publicName}' does not support the messages API`, {
      param: 'model',
    });
  validateMessageList(body);
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) {
    throw new GatewayError('invalid_parameter', 'system must be a string or an array of text blocks', {
      param: 'system',
    });
  }
  if (body.tools !== undefined && (!Array.isArray(body.tools) || !body.tools.every(isObject)))
    throw new GatewayError('invalid_parameter', 'tools must be an array of tool definitions', { param: 'tools' });
  return { input_tokens: estimateMessageTokens(body) };
}
