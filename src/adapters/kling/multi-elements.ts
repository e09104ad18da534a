// Multi-element editing: the selection calls and the edit-task body, in the vendor's shape.
// Session ids going up are the upstream's; the route swaps ours for theirs and back.
import type { EditRequest } from '../../contracts/vidx-edit.ts';
import { isObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

export const SELECTION_PATH = '/v1/videos/multi-elements';

export type SelectionCall = 'add-selection' | 'delete-selection' | 'clear-selection' | 'preview-selection';

export function initSelectionBody(src: { upstreamVideoId: string } | { videoUrl: string }): Record<string, unknown> {
  return 'upstreamVideoId' in src ? { video_id: src.upstreamVideoId } : { video_url: src.videoUrl };
}

/** The init reply's data; session_id is required, the rest passed through as the vendor gave it. */
export function parseInitReply(data: unknown): { upstreamSessionId: string; data: Record<string, unknown> } {
  if (!isObject(data) || typeof data.session_id !== 'string' || data.session_id === '') {
    throw new GatewayError('upstream_error', 'The upstream did not return a selection session');
  }
  if (typeof data.status === 'number' && data.status !== 0) {
    throw new GatewayError(
      'upstream_invalid_request',
      `Upstream rejected the video for editing (status ${data.status})`,
    );
  }
  return { upstreamSessionId: data.session_id, data };
}

/** Replace the upstream session id in a selection reply by ours (the only id the client knows). */
export function withOurSession(data: unknown, ourSessionId: string): Record<string, unknown> {
  const d = isObject(data) ? { ...data } : {};
  if (typeof d.status === 'number' && d.status !== 0) {
    throw new GatewayError('upstream_invalid_request', `Upstream rejected the selection (status ${d.status})`);
  }
  d.session_id = ourSessionId;
  return d;
}

/** The edit-task body; `model_name` only when the catalogue says the endpoint takes one (by default it does not). */
export function editBody(
  r: EditRequest,
  upstreamModel: string | null,
  upstreamSessionId: string,
  ourTaskId: string,
  upstreamCallbackUrl: string | null,
): Record<string, unknown> {
  const b: Record<string, unknown> = {
    ...(upstreamModel === null ? {} : { model_name: upstreamModel }),
    session_id: upstreamSessionId,
    edit_mode: r.editMode,
    prompt: r.prompt,
    mode: r.mode,
    duration: String(r.duration),
    external_task_id: ourTaskId,
  };
  if (r.images.length) b.image_list = r.images.map((image) => ({ image }));
  if (r.negativePrompt !== undefined) b.negative_prompt = r.negativePrompt;
  if (r.watermarkInfo) b.watermark_info = r.watermarkInfo;
  if (upstreamCallbackUrl) b.callback_url = upstreamCallbackUrl;
  return b;
}
