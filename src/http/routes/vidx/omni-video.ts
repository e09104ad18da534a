// POST /vidx/v1/videos/omni-video: the vendor body passed through after auth, model admission and
// the metering hold (+ query and list, as the vendor has them).
import type { FastifyInstance } from 'fastify';
import { omniBody } from '../../../adapters/kling/omni-video.ts';
import { DEFAULT_OMNI_MODEL, OMNI_MODELS, parseOmni } from '../../../contracts/vidx-edit.ts';
import { requireBody } from '../../../contracts/fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { resolveVisibleModel } from '../../../core/model-access.ts';
import { fieldOptions, type FamilyAContext } from './context.ts';
import { ok } from './envelope.ts';
import { createFamilyATask } from './task-create.ts';
import { registerTaskQueries } from './task-query.ts';
import { createdView, KINDS } from './task-view.ts';

function admitOmniModel(ctx: FamilyAContext, raw: unknown): string {
  if (raw === undefined || raw === null) return DEFAULT_OMNI_MODEL;
  if (typeof raw !== 'string' || raw.trim() === '') throw new GatewayError('invalid_parameter', 'model_name must be a non-empty string', { param: 'model_name' });
  const canonical = ctx.deps.catalogue.canonicalName(raw);
  if (OMNI_MODELS.includes(canonical)) return canonical;
  if (!ctx.deps.catalogue.get(canonical)) throw new GatewayError('model_not_found', `The model '${raw}' does not exist or you do not have access to it`, { param: 'model_name' });
  throw new GatewayError('model_not_supported', `The model '${raw}' is not an omni-video model (allowed: ${OMNI_MODELS.join(', ')}); use POST /vidx/v1/videos/text2video`, { param: 'model_name' });
}

export function registerOmniVideo(scope: FastifyInstance, ctx: FamilyAContext): void {
  const { deps } = ctx;
  scope.post('/videos/omni-video', async (req) => {
    const o = requireBody(req.body);
    const m = resolveVisibleModel(deps, req, admitOmniModel(ctx, o.model_name));
    const r = parseOmni(o, fieldOptions(ctx));
    const task = await createFamilyATask(ctx, req, {
      kind: KINDS.omni,
      path: 'omni-video',
      model: m.publicName,
      billingModel: m.billingModel,
      upstreamModel: m.upstreamModel,
      entry: m.entry,
      channels: deps.channels.forModel(m.entry),
      request: { model_name: m.publicName, mode: r.mode, duration: String(r.duration) },
      tier: r.mode,
      seconds: r.duration,
      externalTaskId: r.externalTaskId,
      callbackUrl: r.callbackUrl,
      body: (taskId, cb) => omniBody(r.body, m.upstreamModel, taskId, cb),
    });
    return ok(req, createdView(task));
  });
  registerTaskQueries(scope, ctx, '/videos/omni-video', KINDS.omni);
}
