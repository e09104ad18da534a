// POST /v1/embeddings — input as a string or an array of strings; the OpenAI list shape with usage.
import type { EmbeddingsCapability } from '../../../adapters/types.ts';
import { requireBody } from '../../../contracts/fields.ts';
import { EMBEDDINGS_FIELDS, knownFieldsOnly } from '../../../contracts/text-fields.ts';
import { validateEmbeddings } from '../../../core/text-rules.ts';
import { isKind, textModel, textRequest, type TextDeps } from '../../../core/text.ts';
import type { Exchange } from '../../exchange.ts';
import type { LaneRoute } from '../../front/route-row.ts';
import { sendComplete } from './text-reply.ts';

export function embeddingsRoute(deps: TextDeps, cap: EmbeddingsCapability): (ex: Exchange) => Promise<void> {
  const isEmbedding = isKind('embedding');
  return (ex) => {
    const body = knownFieldsOnly(requireBody(ex.body), EMBEDDINGS_FIELDS);
    validateEmbeddings(body);
    const r = textModel(deps, ex, body, isEmbedding, 'embeddings');
    const treq = textRequest(r, body, ex.rawBody);
    return sendComplete(deps, ex, r, (o) => cap.embed(treq, o));
  };
}

/** The text lane's handler, from the app's text adapter. */
export const embeddings: LaneRoute = ({ deps, text }) => embeddingsRoute(deps, text.embeddings);
