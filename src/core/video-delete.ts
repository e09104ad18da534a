// DELETE /v1/videos/{id} and what GET /v1/videos/{id}/content may serve besides the video.
// A delete cancels a video not yet being made (waiting in the gateway, or queued upstream, which DashScope can still
// cancel) and releases its hold: it is never charged. One being made (in_progress) cannot be stopped upstream, so it
// is refused (409) rather than left for the operator to pay. A finished one is hidden from its owner: not listed, not
// read, its content not served; the operator keeps the task and its charge. As OpenAI's, a deleted video is gone:
// deleting it again is 404.
import { hideVideo } from '../store/repos/video-tasks.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { HasState } from './call.ts';
import { ownedVideo, type VideoDeps } from './videos.ts';

export async function deleteVideo(
  deps: VideoDeps,
  req: HasState,
  id: string,
): Promise<{ id: string; object: 'video.deleted'; deleted: true }> {
  // Read fresh: a video the upstream has finished meanwhile is settled (charged) as made, not cancelled.
  let t = await ownedVideo(deps, req, id, true);
  if (t.state === 'waiting' || t.state === 'queued') t = (await deps.tasks.cancel(t.id, 'owner'))?.task ?? t;
  if (t.state === 'in_progress')
    throw new GatewayError(
      'conflict',
      'The video is being generated (status: in_progress) and the upstream cannot stop it; delete it once it has ' +
        'completed or failed',
      { param: 'video_id' },
    );
  if (!(await hideVideo(deps.tasks.repo.db, t.id, t.tokenId, Date.now())))
    throw new GatewayError('not_found', `No video found with id '${id}'`, { param: 'video_id' });
  return { id: t.id, object: 'video.deleted', deleted: true };
}

export type ContentVariant = 'video' | 'thumbnail' | 'spritesheet';
export const CONTENT_VARIANTS: readonly ContentVariant[] = ['video', 'thumbnail', 'spritesheet'];

/**
 * The variant asked of GET /v1/videos/{id}/content, when it can be served (only `video`). OpenAI's other variants are
 * 404: the video-synthesis upstream returns no cover image and no sprite sheet (upstream-protocols.md §6: a task's
 * result is its video URL), and the MP4 is never sent in their place. Any other value is 400.
 */
export function servedVariant(v: string | undefined): 'video' {
  if (v === undefined || v === 'video') return 'video';
  if (v === 'thumbnail' || v === 'spritesheet')
    throw new GatewayError(
      'not_found',
      `This video has no ${v}: its upstream makes no ${v === 'thumbnail' ? 'cover image' : 'sprite sheet'}; ` +
        'variant=video (the default) serves the video',
      { param: 'variant' },
    );
  throw new GatewayError('invalid_parameter', `variant must be one of ${CONTENT_VARIANTS.join(', ')}`, {
    param: 'variant',
  });
}
