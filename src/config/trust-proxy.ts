// TOLLWAY_TRUST_PROXY: which proxies in front of the gateway may name the client in X-Forwarded-For. Same meaning as
// Fastify's / Express's trustProxy for a hop count or a list of addresses (matched by @fastify/proxy-addr, the
// library Fastify itself uses); "trust every hop" is not offered, as it lets any client pick its own address.
import proxyAddr from '@fastify/proxy-addr';

/** null: off (the client is the connection's peer); hops: that many proxies in front; addresses: those proxies. */
export type TrustProxy = { readonly hops: number } | { readonly addresses: readonly string[] } | null;

/** Is the address at hop `i` (0 = the connection's peer, 1 = the right-most X-Forwarded-For entry, …) a trusted proxy? */
export type TrustFn = (address: string, hop: number) => boolean;

const MAX_HOPS = 32;

/** Parse the variable's value; `fail` is called with a message naming the problem. */
export function parseTrustProxy(raw: string | undefined, fail: (message: string) => never): TrustProxy {
  const v = (raw ?? '').trim();
  if (v === '' || /^(false|off|no|0)$/i.test(v)) return null;
  if (/^(true|yes|on|all)$/i.test(v)) {
    fail('TOLLWAY_TRUST_PROXY: trusting every hop would let any client choose its own address; give the number of proxies in front of the gateway (1) or their addresses/CIDRs');
  }
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_HOPS) fail(`TOLLWAY_TRUST_PROXY: a hop count must be between 1 and ${MAX_HOPS}, got ${hops}`);
    return { hops };
  }
  const addresses = v.split(',').map((a) => a.trim()).filter(Boolean);
  try {
    proxyAddr.compile(addresses);
  } catch (e) {
    fail(`TOLLWAY_TRUST_PROXY: ${(e as Error).message} (a hop count, or a comma list of addresses, CIDRs, loopback, linklocal, uniquelocal)`);
  }
  return { addresses };
}

/** The test of a hop for a parsed setting; null when no proxy is trusted. */
export function trustFunction(t: TrustProxy): TrustFn | null {
  if (t === null) return null;
  if ('hops' in t) {
    const n = t.hops;
    return (_a, hop) => hop < n;
  }
  return proxyAddr.compile([...t.addresses]);
}
