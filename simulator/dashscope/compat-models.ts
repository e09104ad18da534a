// GET /compatible-mode/v1/models: the OpenAI-style model list the DashScope compatible mode answers
// with (upstream model names, never the gateway's public stand-ins).
import type { SimContext } from '../context.ts';
import { requestId, sendJson } from '../http-util.ts';
import type { SimRouter } from '../router.ts';

export const SIM_DASHSCOPE_MODELS = [
  'qwen3.7-plus',
  'qwen3-vl-plus',
  'text-embedding-v4',
  'qwen-image-2.0',
  'qwen-image-2.0-pro',
  'qwen-image-edit-plus',
  'happyhorse-1.1-t2v',
  'happyhorse-1.1-i2v',
  'happyhorse-1.1-r2v',
  'happyhorse-1.0-i2v',
  'happyhorse-1.0-r2v',
  'happyhorse-1.0-video-edit',
  'wan2.7-t2v',
  'wan2.7-i2v',
  'wan2.7-r2v',
  'wan2.7-videoedit',
];

const CREATED = 1_767_225_600;

export function registerCompatModels(router: SimRouter, _ctx: SimContext): void {
  router.on('GET', '/compatible-mode/v1/models', (_req, res) =>
    sendJson(res, 200, {
      object: 'list',
      data: SIM_DASHSCOPE_MODELS.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'system' })),
    }),
  );
  router.on('GET', '/compatible-mode/v1/models/:id', (req, res) => {
    const id = req.params.id ?? '';
    if (!SIM_DASHSCOPE_MODELS.includes(id)) {
      return sendJson(res, 404, {
        error: {
          message: `The model \`${id}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
        request_id: requestId(),
      });
    }
    sendJson(res, 200, { id, object: 'model', created: CREATED, owned_by: 'system' });
  });
}
