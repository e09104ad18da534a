// POST /v1/embeddings — input as a string or an array of strings; the OpenAI list shape with usage.
import type { EmbeddingsCapability, TextRequest } from '../../../adapters/types.ts';
import { requireBody } from '../../../contracts/fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { AppDeps } from '../../deps.ts';
import type { Exchange } from '../../exchange.ts';
import { isKind, prepare, sendComplete } from './text-call.ts';

function validate(body: Record<string, unknown>): void {
  const input = body.input;
  if (input === undefined || input === null) throw new GatewayError('missing_parameter', 'input is required', { param: 'input' });
  const ok = typeof input === 'string' ? input.length > 0 : Array.isArray(input) && input.length > 0 && input.every((s) => typeof s === 'string' && s.length > 0);
  if (!ok) throw new GatewayError('invalid_parameter', 'input must be a non-empty string or a non-empty array of non-empty strings', { param: 'input' });
  const ef = body.encoding_format;
  if (ef !== undefined && ef !== null && ef !== 'float' && ef !== 'base64') throw new GatewayError('invalid_parameter', 'encoding_format must be float or base64', { param: 'encoding_format' });
  // Embeddings never stream: say so rather than answer JSON to a client that asked for events.
  if (body.stream !== undefined && body.stream !== null && body.stream !== false) throw new GatewayError('invalid_parameter', 'embeddings do not stream; remove stream', { param: 'stream' });
}

export function embeddingsRoute(deps: AppDeps, cap: EmbeddingsCapability): (req: Exchange) => Promise<void> {
  return async (req) => {
    const body = requireBody(req.body);
    validate(body);
    const prepared = prepare(deps, req, body, isKind('embedding'), 'embeddings');
    const prep = prepared instanceof Promise ? await prepared : prepared;
    const treq: TextRequest = { body, upstreamModel: prep.r.upstreamModel, publicModel: prep.r.publicName, raw: req.rawBody };
    return sendComplete(deps, req, prep, (o) => cap.embed(treq, o));
  };
}
