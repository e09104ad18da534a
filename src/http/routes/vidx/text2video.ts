// POST /vidx/v1/videos/text2video (+ query and list).
import type { FastifyInstance } from 'fastify';
import { text2VideoBody } from '../../../adapters/kling/text2video.ts';
import { admitText2VideoModel, parseText2Video } from '../../../contracts/vidx-text2video.ts';
import { requireBody } from '../../../contracts/fields.ts';
import { resolveVisibleModel } from '../../../core/model-access.ts';
import { fieldOptions, type FamilyAContext } from './context.ts';
import { ok } from './envelope.ts';
import { createFamilyATask } from './task-create.ts';
import { registerTaskQueries } from './task-query.ts';
import { createdView, KINDS } from './task-view.ts';

export function registerText2Video(scope: FastifyInstance, ctx: FamilyAContext): void {
  const { deps } = ctx;
  scope.post('/videos/text2video', async (req) => {
    const o = requireBody(req.body);
    const admitted = admitText2VideoModel(o.model_name, deps.catalogue);
    const m = resolveVisibleModel(deps, req, admitted);
    const r = parseText2Video(o, m.publicName, fieldOptions(ctx));
    const task = await createFamilyATask(ctx, req, {
      kind: KINDS.text2video,
      path: 'text2video',
      model: m.publicName,
      billingModel: m.billingModel,
      upstreamModel: m.upstreamModel,
      entry: m.entry,
      channels: deps.channels.forModel(m.entry),
      request: { model_name: m.publicName, mode: r.mode, duration: String(r.duration), aspect_ratio: r.aspectRatio, ...(r.watermarkInfo ? { watermark_info: r.watermarkInfo } : {}) },
      tier: r.mode,
      seconds: r.duration,
      externalTaskId: r.externalTaskId,
      callbackUrl: r.callbackUrl,
      body: (taskId, cb) => text2VideoBody(r, m.upstreamModel, taskId, cb),
    });
    return ok(req, createdView(task));
  });
  registerTaskQueries(scope, ctx, '/videos/text2video', KINDS.text2video);
}
