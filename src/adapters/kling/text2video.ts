// Contract text2video request → the vendor's body. Public names never go up: the model is the
// catalogue's upstream name, and our own task id is the upstream external_task_id (unique per account,
// and it lets an operator find the upstream task from ours).
import type { Text2VideoRequest } from '../../contracts/vidx-text2video.ts';

export function text2VideoBody(r: Text2VideoRequest, upstreamModel: string, ourTaskId: string, upstreamCallbackUrl: string | null): Record<string, unknown> {
  const b: Record<string, unknown> = {
    model_name: upstreamModel,
    prompt: r.prompt,
    mode: r.mode,
    aspect_ratio: r.aspectRatio,
    duration: String(r.duration),
    external_task_id: ourTaskId,
  };
  if (r.negativePrompt !== undefined) b.negative_prompt = r.negativePrompt;
  if (r.cfgScale !== undefined) b.cfg_scale = r.cfgScale;
  if (r.sound !== undefined) b.sound = r.sound;
  if (r.cameraControl) b.camera_control = r.cameraControl;
  if (r.watermarkInfo) b.watermark_info = r.watermarkInfo;
  if (upstreamCallbackUrl) b.callback_url = upstreamCallbackUrl;
  return b;
}
