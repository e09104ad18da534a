// Omni-video: the client's vendor body is passed through; only the model (public → upstream name),
// the callback address and the external id (ours) are rewritten.
export function omniBody(
  body: Record<string, unknown>,
  upstreamModel: string,
  ourTaskId: string,
  upstreamCallbackUrl: string | null,
): Record<string, unknown> {
  const b: Record<string, unknown> = { ...body, model_name: upstreamModel, external_task_id: ourTaskId };
  delete b.model;
  if (upstreamCallbackUrl) b.callback_url = upstreamCallbackUrl;
  else delete b.callback_url;
  return b;
}
