// Multi-element editing: init/add/delete/clear/preview selection (sessions bound to the token, 24 h),
// then POST /vidx/v1/videos/multi-elements (+ query and list).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { editBody, initSelectionBody, parseInitReply, SELECTION_PATH, withOurSession, type SelectionCall } from '../../../adapters/kling/multi-elements.ts';
import { EDIT_BILLING_MODEL, EDIT_MODEL, parseEditRequest, parseInitSelection, parseSelectionPoints, parseSessionOnly } from '../../../contracts/vidx-edit.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { Channel } from '../../../routing/channel-registry.ts';
import { upstreamCall } from '../../../core/upstream-call.ts';
import type { ResolvedModel } from '../../../catalogue/types.ts';
import { principalOf } from '../../../core/call.ts';
import { resolveVisibleModel } from '../../../core/model-access.ts';
import { fieldOptions, type FamilyAContext } from './context.ts';
import { ok } from './envelope.ts';
import { createFamilyATask } from './task-create.ts';
import { registerTaskQueries } from './task-query.ts';
import { createdView, KINDS, parseVideoId, storedVideos } from './task-view.ts';

/** The edit model as the caller may use it (allow-list and channels apply), priced by the hidden edit entry. */
function editModel(ctx: FamilyAContext, req: FastifyRequest): { visible: ResolvedModel; billing: ResolvedModel } {
  const visible = resolveVisibleModel(ctx.deps, req, EDIT_MODEL);
  const billing = ctx.deps.catalogue.resolve(EDIT_BILLING_MODEL) ?? visible;
  return { visible, billing };
}

function channelOf(ctx: FamilyAContext, id: string): Channel {
  const ch = ctx.deps.channels.get(id);
  if (!ch) throw new GatewayError('no_channel', 'The upstream channel holding this session or video is no longer available');
  return ch;
}

/** video_id is one of OUR video ids; it maps to the upstream video on the channel that produced it. */
async function sourceOf(ctx: FamilyAContext, req: FastifyRequest, videoId: string): Promise<{ channel: Channel; upstreamVideoId: string }> {
  const ref = parseVideoId(videoId);
  const t = ref ? await ctx.deps.tasks.repo.getFor(ref.taskId, principalOf(req).tokenId) : null;
  const v = t && t.state === 'succeeded' ? storedVideos(t.result)[ref!.index] : undefined;
  if (!t || !v) throw new GatewayError('not_found', `Video ${videoId} not found`, { param: 'video_id' });
  return { channel: channelOf(ctx, t.channelId), upstreamVideoId: v.upstreamId };
}

function registerSelection(scope: FastifyInstance, ctx: FamilyAContext): void {
  scope.post('/videos/multi-elements/init-selection', async (req) => {
    const input = parseInitSelection(req.body);
    const { visible, billing } = editModel(ctx, req);
    const tokenId = principalOf(req).tokenId;
    const call = async (ch: Channel, body: Record<string, unknown>) => {
      const r = await ctx.client.call(ch, 'POST', `${SELECTION_PATH}/init-selection`, body);
      req.state.upstreamRequestId = r.upstreamRequestId;
      return { ch, ...parseInitReply(r.data) };
    };
    let out;
    if ('videoId' in input) {
      const src = await sourceOf(ctx, req, input.videoId);
      out = await call(src.channel, initSelectionBody({ upstreamVideoId: src.upstreamVideoId }));
    } else {
      // The hidden edit entry's channels, else the visible model's. Not metered: a selection session costs nothing.
      const entry = ctx.deps.channels.forModel(billing.entry).length ? billing.entry : visible.entry;
      out = await upstreamCall(ctx.deps, req, { entry, retry: 'connect-only', quota: 'free' }, (ch) => call(ch, initSelectionBody({ videoUrl: input.videoUrl })));
    }
    const session = await ctx.sessions.create(tokenId, out.ch.id, out.upstreamSessionId, out.data);
    return ok(req, withOurSession(out.data, session.id));
  });

  const op = (name: SelectionCall, parse: (b: unknown) => { sessionId: string; frameIndex?: number; points?: Array<{ x: number; y: number }> }) =>
    scope.post(`/videos/multi-elements/${name}`, async (req) => {
      const input = parse(req.body);
      editModel(ctx, req);
      const session = await ctx.sessions.requireLive(input.sessionId, principalOf(req).tokenId);
      const body: Record<string, unknown> = { session_id: session.upstreamSessionId };
      if (input.frameIndex !== undefined) body.frame_index = input.frameIndex;
      if (input.points) body.points = input.points;
      const r = await ctx.client.call(channelOf(ctx, session.channelId), 'POST', `${SELECTION_PATH}/${name}`, body);
      req.state.upstreamRequestId = r.upstreamRequestId;
      return ok(req, withOurSession(r.data, session.id));
    });
  op('add-selection', parseSelectionPoints);
  op('delete-selection', parseSelectionPoints);
  op('clear-selection', parseSessionOnly);
  op('preview-selection', parseSessionOnly);
}

export function registerMultiElements(scope: FastifyInstance, ctx: FamilyAContext): void {
  registerSelection(scope, ctx);
  scope.post('/videos/multi-elements', async (req) => {
    const r = parseEditRequest(req.body, fieldOptions(ctx));
    const { visible, billing } = editModel(ctx, req);
    const session = await ctx.sessions.requireLive(r.sessionId, principalOf(req).tokenId);
    const task = await createFamilyATask(ctx, req, {
      kind: KINDS.edit,
      path: 'multi-elements',
      model: visible.publicName,
      billingModel: billing.billingModel,
      upstreamModel: billing.upstreamModel,
      entry: billing.entry,
      // The session lives in one upstream account: the edit must go there.
      channels: [channelOf(ctx, session.channelId)],
      request: { model_name: visible.publicName, edit_mode: r.editMode, mode: r.mode, duration: String(r.duration), ...(r.watermarkInfo ? { watermark_info: r.watermarkInfo } : {}) },
      tier: r.mode,
      seconds: r.duration,
      externalTaskId: r.externalTaskId,
      callbackUrl: r.callbackUrl,
      sessionId: session.id,
      body: (taskId, cb) => editBody(r, billing.upstreamModel, session.upstreamSessionId, taskId, cb),
    });
    return ok(req, createdView(task));
  });
  registerTaskQueries(scope, ctx, '/videos/multi-elements', KINDS.edit);
}
