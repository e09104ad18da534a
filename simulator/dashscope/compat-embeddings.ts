import { createHash } from 'node:crypto';
import type { SimContext } from '../context.ts';
import { countTokens, requestId, sendJson } from '../http-util.ts';
import type { SimRouter } from '../router.ts';
import { compatError } from './errors.ts';

const DIMENSIONS = [2048, 1536, 1024, 768, 512, 256, 128, 64];

/** A deterministic unit vector from the text (so equal inputs give equal vectors). */
function vectorFor(text: string, dims: number): number[] {
  const out: number[] = new Array(dims);
  let seed = createHash('sha256').update(text).digest();
  for (let i = 0; i < dims; i++) {
    if (i % 32 === 0 && i > 0) seed = createHash('sha256').update(seed).digest();
    out[i] = (seed[i % 32]! - 127.5) / 127.5;
  }
  const norm = Math.sqrt(out.reduce((a, b) => a + b * b, 0)) || 1;
  return out.map((v) => Number((v / norm).toFixed(6)));
}

export function registerCompatEmbeddings(router: SimRouter, _ctx: SimContext): void {
  router.on('POST', '/compatible-mode/v1/embeddings', (req, res) => {
    const body = req.json as { model?: unknown; input?: unknown; dimensions?: unknown } | undefined;
    if (!body || typeof body !== 'object')
      return compatError(res, 400, 'invalid_parameter_error', 'Request body is not valid JSON.');
    if (typeof body.model !== 'string') return compatError(res, 400, 'invalid_parameter_error', 'Model not specified.');
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((s) => typeof s === 'string')) {
      return compatError(res, 400, 'invalid_parameter_error', 'input must be a string or an array of strings.');
    }
    if (inputs.length > 10)
      return compatError(
        res,
        400,
        'invalid_parameter_error',
        'batch size is invalid, it should not be larger than 10.',
      );
    const ef = (body as { encoding_format?: unknown }).encoding_format;
    if (ef !== undefined && ef !== 'float')
      return compatError(res, 400, 'invalid_parameter_error', 'encoding_format only supports float.');
    const dims = body.dimensions === undefined ? 1024 : Number(body.dimensions);
    if (!DIMENSIONS.includes(dims))
      return compatError(res, 400, 'invalid_parameter_error', `dimensions must be one of ${DIMENSIONS.join(', ')}.`);
    const tokens = (inputs as string[]).reduce((a, s) => a + countTokens(s), 0);
    req.settleTokens?.(tokens);
    sendJson(res, 200, {
      object: 'list',
      data: (inputs as string[]).map((s, index) => ({ object: 'embedding', index, embedding: vectorFor(s, dims) })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
      id: requestId(),
    });
  });
}
