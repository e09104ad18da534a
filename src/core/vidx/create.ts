// Family A task creation on the text2video and omni-video paths: model admission, the vendor body, the hold and
// the submit (core/vidx/tasks.ts).
import { omniBody } from '../../adapters/kling/omni-video.ts';
import { text2VideoBody } from '../../adapters/kling/text2video.ts';
import { requireBody } from '../../contracts/fields.ts';
import { DEFAULT_OMNI_MODEL, OMNI_MODELS, parseOmni } from '../../contracts/vidx-edit.ts';
import { admitText2VideoModel, parseText2Video } from '../../contracts/vidx-text2video.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TaskRecord } from '../../tasks/types.ts';
import type { CallContext } from '../call.ts';
import { resolveVisibleModel } from '../model-access.ts';
import { fieldOptions, type VidxContext } from './context.ts';
import { createVidxTask } from './tasks.ts';
import { KINDS } from './views.ts';

/** POST /vidx/v1/videos/text2video */
export async function createText2Video(ctx: VidxContext, req: CallContext, raw: unknown): Promise<TaskRecord> {
  const { deps } = ctx;
  const o = requireBody(raw);
  const admitted = admitText2VideoModel(o.model_name, deps.catalogue);
  const m = resolveVisibleModel(deps, req, admitted);
  const r = parseText2Video(o, m.publicName, fieldOptions(ctx));
  return createVidxTask(ctx, req, {
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
}

function admitOmniModel(ctx: VidxContext, raw: unknown): string {
  if (raw === undefined || raw === null) return DEFAULT_OMNI_MODEL;
  if (typeof raw !== 'string' || raw.trim() === '') throw new GatewayError('invalid_parameter', 'model_name must be a non-empty string', { param: 'model_name' });
  const canonical = ctx.deps.catalogue.canonicalName(raw);
  if (OMNI_MODELS.includes(canonical)) return canonical;
  if (!ctx.deps.catalogue.get(canonical)) throw new GatewayError('model_not_found', `The model '${raw}' does not exist or you do not have access to it`, { param: 'model_name' });
  throw new GatewayError('model_not_supported', `The model '${raw}' is not an omni-video model (allowed: ${OMNI_MODELS.join(', ')}); use POST /vidx/v1/videos/text2video`, { param: 'model_name' });
}

/** POST /vidx/v1/videos/omni-video: the vendor body passed through after model admission and the hold. */
export async function createOmniVideo(ctx: VidxContext, req: CallContext, raw: unknown): Promise<TaskRecord> {
  const { deps } = ctx;
  const o = requireBody(raw);
  const m = resolveVisibleModel(deps, req, admitOmniModel(ctx, o.model_name));
  const r = parseOmni(o, fieldOptions(ctx));
  return createVidxTask(ctx, req, {
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
}
