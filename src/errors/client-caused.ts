// An upstream refusal the client's own input caused: its body refused (400, 422) or too large (413), its URL or
// headers too long (414, 431). The refusal is the client's: answered as upstream_invalid_request, never counted
// against the channel's breaker and never sent to another channel (any account would refuse it alike).
const CLIENT_CAUSED = new Set([400, 413, 414, 422, 431]);

export function isClientCausedStatus(status: number): boolean {
  return CLIENT_CAUSED.has(status);
}
