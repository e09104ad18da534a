// An upstream refusal the request itself caused: its body refused (400, 422), too large (413), of a type or length
// the upstream does not take (411, 415), a range it cannot serve (416), in conflict with what the upstream holds
// (409, e.g. an id already used), not sent in time (408), or refused for legal reasons (451); its URL or headers too
// long (414, 431). The refusal is the request's: answered as upstream_invalid_request, never counted against the
// channel's breaker and never sent to another channel (any account would refuse it alike).
const CLIENT_CAUSED = new Set([400, 408, 409, 411, 413, 414, 415, 416, 422, 431, 451]);

export function isClientCausedStatus(status: number): boolean {
  return CLIENT_CAUSED.has(status);
}
