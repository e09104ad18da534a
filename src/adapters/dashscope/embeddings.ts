// Embeddings on DashScope (/compatible-mode/v1/embeddings). The answer is large (vectors): it is forwarded as
// bytes; only the small usage object is parsed, and the model renamed only when the names differ.
import type { UpstreamClient } from '../http-client.ts';
import { num, objectAfterKey, renameModel } from '../json-scan.ts';
import type { CallOptions, CompleteResult, EmbeddingsCapability, TextRequest } from '../types.ts';
import { assertJson, bodyText, firstString, headerString, postDashscope } from './compat-chat-common.ts';

export const EMBEDDINGS_PATH = '/compatible-mode/v1/embeddings';

export function dashscopeEmbeddings(client: UpstreamClient): EmbeddingsCapability {
  return {
    async embed(req: TextRequest, o: CallOptions): Promise<CompleteResult> {
      const res = await postDashscope(client, o, { path: EMBEDDINGS_PATH, body: JSON.stringify({ ...req.body, model: req.upstreamModel }) });
      const text = await bodyText(res);
      const u = objectAfterKey(text, 'usage');
      if (!u) assertJson(text);
      return {
        body: renameModel(text, req.upstreamModel, req.publicModel),
        usage: u ? { kind: 'tokens', inputTokens: num(u.prompt_tokens ?? u.total_tokens), outputTokens: 0 } : null,
        upstreamRequestId: headerString(res.headers['x-request-id']) ?? firstString(text, 'id'),
      };
    },
  };
}
