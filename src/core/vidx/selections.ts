// Multi-element editing: a selection session (bound to the token, 24 h, in the upstream account that holds the
// video), the selection calls on it, and the edit task that consumes it.
import {
  editBody,
  initSelectionBody,
  parseInitReply,
  SELECTION_PATH,
  withOurSession,
  type SelectionCall,
} from '../../adapters/kling/multi-elements.ts';
import type { ResolvedModel, VidxEndpoint } from '../../catalogue/types.ts';
import { vidxEndpointOf } from '../../catalogue/vidx-endpoints.ts';
import { EDIT_BILLING_MODEL, EDIT_MODEL, parseEditRequest, parseInitSelection } from '../../contracts/vidx-edit.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type { TaskRecord } from '../../tasks/types.ts';
import { principalOf, type CallContext, type HasState } from '../call.ts';
import { resolveVisibleModel } from '../model-access.ts';
import { upstreamCall } from '../upstream-call.ts';
import { fieldOptions, type VidxContext } from './context.ts';
import { createVidxTask } from './tasks.ts';
import { KINDS, parseVideoId, storedVideos } from './views.ts';

/** The edit model as the caller may use it (allow-list and channels apply), priced by the hidden edit entry. */
function editModel(ctx: VidxContext, call: HasState): { visible: ResolvedModel; billing: ResolvedModel } {
  const visible = resolveVisibleModel(ctx.deps, call, EDIT_MODEL);
  const billing = ctx.deps.catalogue.resolve(EDIT_BILLING_MODEL) ?? visible;
  return { visible, billing };
}

/** How the edit model is served (catalogue data on the hidden edit entry): its fields, durations and body. */
function editRules(ctx: VidxContext): VidxEndpoint {
  const entry = ctx.deps.catalogue.get(EDIT_BILLING_MODEL) ?? ctx.deps.catalogue.get(EDIT_MODEL);
  const rules = entry ? vidxEndpointOf(entry, 'multi-elements') : null;
  if (!rules)
    throw new GatewayError('model_not_supported', `The model '${EDIT_MODEL}' does not support multi-element editing`, {
      param: 'model_name',
    });
  return rules;
}

function channelOf(ctx: VidxContext, id: string): Channel {
  const ch = ctx.deps.channels.get(id);
  if (!ch)
    throw new GatewayError('no_channel', 'The upstream channel holding this session or video is no longer available');
  return ch;
}

/** video_id is one of OUR video ids; it maps to the upstream video on the channel that produced it. */
async function sourceOf(
  ctx: VidxContext,
  call: HasState,
  videoId: string,
): Promise<{ channel: Channel; upstreamVideoId: string }> {
  const ref = parseVideoId(videoId);
  const t = ref ? await ctx.deps.tasks.repo.getFor(ref.taskId, principalOf(call).tokenId) : null;
  const v = t && t.state === 'succeeded' ? storedVideos(t.result)[ref!.index] : undefined;
  if (!t || !v) throw new GatewayError('not_found', `Video ${videoId} not found`, { param: 'video_id' });
  return { channel: channelOf(ctx, t.channelId), upstreamVideoId: v.upstreamId };
}

/** init-selection: open a session on one of the caller's videos, or on a video URL. Not metered. */
export async function initSelection(ctx: VidxContext, call: CallContext, raw: unknown): Promise<unknown> {
  const input = parseInitSelection(raw);
  const { visible, billing } = editModel(ctx, call);
  const send = async (ch: Channel, body: Record<string, unknown>) => {
    const r = await ctx.client.call(ch, 'POST', `${SELECTION_PATH}/init-selection`, body);
    call.state.upstreamRequestId = r.upstreamRequestId;
    return { ch, ...parseInitReply(r.data) };
  };
  let out: Awaited<ReturnType<typeof send>>;
  if ('videoId' in input) {
    const src = await sourceOf(ctx, call, input.videoId);
    out = await send(src.channel, initSelectionBody({ upstreamVideoId: src.upstreamVideoId }));
  } else {
    // The hidden edit entry's channels, else the visible model's.
    const entry = ctx.deps.channels.forModel(billing.entry).length ? billing.entry : visible.entry;
    out = await upstreamCall(ctx.deps, call, { entry, retry: 'connect-only', quota: 'free' }, (ch) =>
      send(ch, initSelectionBody({ videoUrl: input.videoUrl })),
    );
  }
  const session = await ctx.sessions.create(principalOf(call).tokenId, out.ch.id, out.upstreamSessionId, out.data);
  return withOurSession(out.data, session.id);
}

export interface SelectionInput {
  sessionId: string;
  frameIndex?: number;
  points?: Array<{ x: number; y: number }>;
}

/** add/delete/clear/preview-selection on a live session of the caller's, in the account that holds it. */
export async function selectionCall(
  ctx: VidxContext,
  call: HasState,
  name: SelectionCall,
  input: SelectionInput,
): Promise<unknown> {
  editModel(ctx, call);
  const session = await ctx.sessions.requireLive(input.sessionId, principalOf(call).tokenId);
  const body: Record<string, unknown> = { session_id: session.upstreamSessionId };
  if (input.frameIndex !== undefined) body.frame_index = input.frameIndex;
  if (input.points) body.points = input.points;
  const r = await ctx.client.call(channelOf(ctx, session.channelId), 'POST', `${SELECTION_PATH}/${name}`, body);
  call.state.upstreamRequestId = r.upstreamRequestId;
  return withOurSession(r.data, session.id);
}

/** The edit task on a live session: held, then submitted to the account that holds the session. */
export async function createEditTask(ctx: VidxContext, call: CallContext, raw: unknown): Promise<TaskRecord> {
  const rules = editRules(ctx);
  const r = parseEditRequest(raw, rules, fieldOptions(ctx));
  const { visible, billing } = editModel(ctx, call);
  const session = await ctx.sessions.requireLive(r.sessionId, principalOf(call).tokenId);
  return createVidxTask(ctx, call, {
    kind: KINDS.edit,
    path: 'multi-elements',
    publicName: visible.publicName,
    billingModel: billing.billingModel,
    upstreamModel: billing.upstreamModel,
    entry: billing.entry,
    // The session lives in one upstream account: the edit must go there.
    channels: [channelOf(ctx, session.channelId)],
    request: {
      model_name: visible.publicName,
      edit_mode: r.editMode,
      mode: r.mode,
      duration: String(r.duration),
      ...(r.watermarkInfo ? { watermark_info: r.watermarkInfo } : {}),
    },
    tier: r.mode,
    seconds: r.duration,
    externalTaskId: r.externalTaskId,
    callbackUrl: r.callbackUrl,
    sessionId: session.id,
    body: (taskId, cb) =>
      editBody(r, rules.sendModelName !== false ? billing.upstreamModel : null, session.upstreamSessionId, taskId, cb),
  });
}
