// Contract text2video request → the vendor's body, on the endpoint the catalogue names for the model. Public names
// never go up: the model is the catalogue's upstream name, and our own task id is the upstream external_task_id
// (unique per account, and it lets an operator find the upstream task from ours).
import type { VidxEndpoint } from '../../catalogue/types.ts';
import type { Text2VideoRequest } from '../../contracts/vidx-text2video.ts';

/** The body for `POST /v1/videos/<rules.endpoint>`: the classic text2video body, or a text-only omni body (o1). */
export function text2VideoBody(
  r: Text2VideoRequest,
  upstreamModel: string,
  rules: VidxEndpoint,
  ourTaskId: string,
  upstreamCallbackUrl: string | null,
): Record<string, unknown> {
  const takes = (f: VidxEndpoint['fields'][number]) => rules.fields.includes(f);
  const b: Record<string, unknown> = { model_name: upstreamModel, prompt: r.prompt };
  // A model without modes (the masters) gets no mode field at all.
  if (takes('mode')) b.mode = r.mode;
  b.aspect_ratio = r.aspectRatio;
  b.duration = String(r.duration);
  b.external_task_id = ourTaskId;
  // The contract's rules admitted only the fields the model takes (parseText2Video); they go up as given.
  if (r.negativePrompt !== undefined) b.negative_prompt = r.negativePrompt;
  if (r.cfgScale !== undefined) b.cfg_scale = r.cfgScale;
  if (r.sound !== undefined) b.sound = r.sound;
  if (r.cameraControl) b.camera_control = r.cameraControl;
  if (r.passThrough) Object.assign(b, r.passThrough);
  if (r.watermarkInfo) b.watermark_info = r.watermarkInfo;
  if (upstreamCallbackUrl) b.callback_url = upstreamCallbackUrl;
  return b;
}
