// Family A task creation on the text2video and omni-video paths: model admission, how the catalogue says the model
// is served there (upstream endpoint, fields, durations), the vendor body, the hold and the submit
// (core/vidx/tasks.ts).
import { echo } from '../../errors/echo.ts';
import { omniBody } from '../../adapters/kling/omni-video.ts';
import { text2VideoBody } from '../../adapters/kling/text2video.ts';
import type { Catalogue } from '../../catalogue/catalogue.ts';
import { vidxEndpointOf } from '../../catalogue/vidx-endpoints.ts';
import { requireBody } from '../../contracts/fields.ts';
import { DEFAULT_OMNI_MODEL, parseOmni } from '../../contracts/vidx-edit.ts';
import { admitText2VideoModel, parseText2Video, text2VideoEndpoint } from '../../contracts/vidx-text2video.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { pricedAsk } from '../../contracts/vidx-priced.ts';
import type { TaskRecord } from '../../tasks/types.ts';
import { principalOf, type CallContext } from '../call.ts';
import { resolveVisibleModel } from '../model-access.ts';
import { fieldOptions, type VidxContext } from './context.ts';
import { createVidxTask } from './tasks.ts';
import { KINDS } from './views.ts';

/**
 * POST /vidx/v1/videos/text2video. The task is a text2video task for the client (its path, list and external ids)
 * whichever upstream endpoint creates it; the endpoint is kept in its stored kind (views.ts storedKind), so its driver
 * queries, lists and recovers it there.
 */
export async function createText2Video(ctx: VidxContext, req: CallContext, raw: unknown): Promise<TaskRecord> {
  const { deps } = ctx;
  const o = requireBody(raw);
  const admitted = admitText2VideoModel(o.model_name, deps.catalogue);
  const m = resolveVisibleModel(deps, req, admitted);
  const rules = text2VideoEndpoint(m.entry, m.publicName);
  const r = parseText2Video(o, m.publicName, rules, fieldOptions(ctx));
  const upstreamModel = rules.upstreamModel ?? m.upstreamModel;
  return createVidxTask(ctx, req, {
    kind: KINDS.text2video,
    path: rules.endpoint,
    publicName: m.publicName,
    billingModel: m.billingModel,
    upstreamModel,
    entry: m.entry,
    channels: deps.channels.forModel(m.entry, upstreamModel, principalOf(req)),
    request: {
      model_name: m.publicName,
      mode: r.mode,
      duration: String(r.duration),
      aspect_ratio: r.aspectRatio,
      ...(r.watermarkInfo ? { watermark_info: r.watermarkInfo } : {}),
    },
    tier: r.mode,
    seconds: r.duration,
    ask: pricedAsk(r.priced ?? {}),
    externalTaskId: r.externalTaskId,
    callbackUrl: r.callbackUrl,
    body: (taskId, cb) => text2VideoBody(r, upstreamModel, rules, taskId, cb),
  });
}

/** Public models the omni-video path serves (catalogue data). */
function omniModels(catalogue: Catalogue): string[] {
  return catalogue
    .entries()
    .filter((e) => !e.hidden && vidxEndpointOf(e, 'omni-video'))
    .map((e) => e.id);
}

function admitOmniModel(ctx: VidxContext, raw: unknown): string {
  if (raw === undefined || raw === null) return DEFAULT_OMNI_MODEL;
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new GatewayError('invalid_parameter', 'model_name must be a non-empty string', { param: 'model_name' });
  const canonical = ctx.deps.catalogue.canonicalName(raw);
  const entry = ctx.deps.catalogue.get(canonical);
  if (!entry)
    throw new GatewayError(
      'model_not_found',
      `The model '${echo(raw)}' does not exist or you do not have access to it`,
      { param: 'model_name' },
    );
  if (!entry.hidden && entry.upstream === 'kling' && vidxEndpointOf(entry, 'omni-video')) return canonical;
  throw new GatewayError(
    'model_not_supported',
    `The model '${raw}' is not an omni-video model (allowed: ${omniModels(ctx.deps.catalogue).join(', ')}); use POST /vidx/v1/videos/text2video`,
    { param: 'model_name' },
  );
}

/** POST /vidx/v1/videos/omni-video: the vendor body passed through after model admission, its rules and the hold. */
export async function createOmniVideo(ctx: VidxContext, req: CallContext, raw: unknown): Promise<TaskRecord> {
  const { deps } = ctx;
  const o = requireBody(raw);
  const m = resolveVisibleModel(deps, req, admitOmniModel(ctx, o.model_name));
  const rules = vidxEndpointOf(m.entry, 'omni-video');
  if (!rules)
    throw new GatewayError('model_not_supported', `The model '${m.publicName}' is not an omni-video model`, {
      param: 'model_name',
    });
  const r = parseOmni(o, m.publicName, rules, fieldOptions(ctx));
  const upstreamModel = rules.upstreamModel ?? m.upstreamModel;
  return createVidxTask(ctx, req, {
    kind: KINDS.omni,
    path: rules.endpoint,
    publicName: m.publicName,
    billingModel: m.billingModel,
    upstreamModel,
    entry: m.entry,
    channels: deps.channels.forModel(m.entry, upstreamModel, principalOf(req)),
    request: { model_name: m.publicName, mode: r.mode, duration: String(r.duration) },
    tier: r.mode,
    seconds: r.duration,
    ask: pricedAsk(r.priced ?? {}),
    externalTaskId: r.externalTaskId,
    callbackUrl: r.callbackUrl,
    body: (taskId, cb) => omniBody(r.body, upstreamModel, taskId, cb),
  });
}
