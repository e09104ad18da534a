// The async Qwen-Image form (qwen-image and qwen-image-plus only): submit to text2image/image-synthesis
// with `X-DashScope-Async: enable`, then poll `GET /api/v1/tasks/{id}` (the shared task store in tasks.ts).
// The gateway uses the sync form; this exists so the simulator speaks the whole documented protocol.
import type { SimContext } from '../context.ts';
import type { SimRouter } from '../router.ts';
import { nativeError } from './errors.ts';
import { IMAGE_MODELS, makeResultImage, parseUpstreamSize } from './images.ts';
import { dashscopeAccountOf } from '../auth.ts';
import { createDashscopeTask, taskCreatedReply, taskFaultOf } from './tasks.ts';

export const IMAGE_SYNTHESIS_PATH = '/api/v1/services/aigc/text2image/image-synthesis';
const ASYNC_MODELS = new Set(['qwen-image', 'qwen-image-plus']);

export function registerImagesAsync(router: SimRouter, ctx: SimContext): void {
  router.on('POST', IMAGE_SYNTHESIS_PATH, (req, res) => {
    if (req.headers['x-dashscope-async'] !== 'enable') {
      return nativeError(res, 403, 'AccessDenied', 'current user api does not support synchronous calls');
    }
    const body = req.json as
      | {
          model?: unknown;
          input?: { prompt?: unknown; negative_prompt?: unknown };
          parameters?: Record<string, unknown>;
        }
      | undefined;
    if (!body || typeof body !== 'object')
      return nativeError(res, 400, 'InvalidParameter', 'Request body is not valid JSON.');
    if (typeof body.model !== 'string' || !body.model)
      return nativeError(res, 400, 'BadRequest.EmptyModel', 'Required parameter "model" missing from request.');
    const rule = IMAGE_MODELS[body.model];
    if (!rule || !ASYNC_MODELS.has(body.model))
      return nativeError(
        res,
        400,
        'InvalidParameter',
        `Model ${body.model} does not support asynchronous image synthesis.`,
      );
    const prompt = body.input?.prompt;
    if (typeof prompt !== 'string' || !prompt.trim())
      return nativeError(res, 400, 'InvalidParameter', 'Required parameter "input.prompt" missing.');
    const params = body.parameters ?? {};
    const n = params.n ?? 1;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > rule.maxN) {
      return nativeError(res, 400, 'InvalidParameter', `n must be an integer between 1 and ${rule.maxN}.`);
    }
    const sizeRaw = params.size ?? rule.defaultSize;
    const size = typeof sizeRaw === 'string' ? parseUpstreamSize(sizeRaw, rule) : 'size must be a string.';
    if (typeof size === 'string') return nativeError(res, 400, 'InvalidParameter', size);
    const task = createDashscopeTask(ctx, {
      area: 'image-synthesis',
      model: body.model,
      fault: taskFaultOf(req),
      account: dashscopeAccountOf(req.req, ctx.opts.dashscopeKeys),
      failure: { code: 'InternalError.Algo', message: 'An internal error occurred while generating the image.' },
      succeed: () => ({
        output: {
          results: Array.from({ length: n }, (_v, i) => ({
            orig_prompt: prompt,
            actual_prompt: prompt,
            url: makeResultImage(ctx, `${prompt}:${i}`),
          })),
          task_metrics: { TOTAL: n, SUCCEEDED: n, FAILED: 0 },
        },
        usage: { image_count: n },
      }),
    });
    taskCreatedReply(res, task);
  });
}
