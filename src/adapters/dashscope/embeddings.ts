// Embeddings on DashScope (/compatible-mode/v1/embeddings). The answer is large (vectors): it is forwarded as
// bytes; only the small usage object is parsed, and the model renamed only when the names differ.
import { isObject } from '../../json/json.ts';
import type { UpstreamClient } from '../http-client.ts';
import { num, objectAfterKey, renameModel } from '../json-scan.ts';
import { bodyWithModel } from '../json-splice.ts';
import type { CallOptions, CompleteResult, EmbeddingsCapability, TextRequest } from '../types.ts';
import { assertJson, firstString, postDashscopeText, unusableAnswer } from './compat-chat-common.ts';

export const EMBEDDINGS_PATH = '/compatible-mode/v1/embeddings';

export function dashscopeEmbeddings(client: UpstreamClient): EmbeddingsCapability {
  return {
    async embed(req: TextRequest, o: CallOptions): Promise<CompleteResult> {
      // The upstream returns floats only; base64 (the OpenAI SDK's default) is encoded here from those floats.
      const base64 = req.body.encoding_format === 'base64';
      const upstreamBody = base64
        ? JSON.stringify({ ...req.body, model: req.upstreamModel, encoding_format: 'float' })
        : bodyWithModel(req);
      const res = await postDashscopeText(client, o, { path: EMBEDDINGS_PATH, body: upstreamBody });
      const text = res.text;
      const u = objectAfterKey(text, 'usage');
      if (!u) assertJson(text);
      return {
        body: base64
          ? toBase64Embeddings(text, req.publicModel)
          : renameModel(text, req.upstreamModel, req.publicModel),
        usage: u ? { kind: 'tokens', inputTokens: num(u.prompt_tokens ?? u.total_tokens), outputTokens: 0 } : null,
        upstreamRequestId: res.header('x-request-id') ?? firstString(text, 'id'),
      };
    },
  };
}

/** Float vectors → base64 of little-endian float32, as OpenAI's `encoding_format: "base64"` answers. */
export function toBase64Embeddings(text: string, publicModel: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw unusableAnswer('The upstream returned a malformed response');
  }
  if (!isObject(parsed) || !Array.isArray(parsed.data)) throw unusableAnswer('The upstream answer had no data');
  for (const item of parsed.data) {
    if (!isObject(item) || !Array.isArray(item.embedding)) continue;
    const f = Float32Array.from(item.embedding as number[]);
    item.embedding = Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64');
  }
  parsed.model = publicModel;
  return JSON.stringify(parsed);
}
