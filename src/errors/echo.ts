// Strings from outside that the gateway repeats back or keeps: a client's own input echoed in an error message (an
// unknown model name) and an upstream's request id. Both are cut to a documented length (docs/api.md), so a 5 MiB
// model name or a hostile upstream's 100 KB id costs neither the answer nor the store more than that.

/** Characters of a client's string an error message repeats; longer ones end in "…". */
export const MAX_ECHO = 256;

/** Characters of an upstream request id kept and shown (the request-log and ledger columns hold as many). */
export const MAX_UPSTREAM_ID = 200;

export function echo(s: string): string {
  return s.length > MAX_ECHO ? `${s.slice(0, MAX_ECHO)}…` : s;
}

export function upstreamId<T extends string | null | undefined>(s: T): T {
  return (typeof s === 'string' && s.length > MAX_UPSTREAM_ID ? s.slice(0, MAX_UPSTREAM_ID) : s) as T;
}
