// TOLLWAY_TRUST_PROXY: which proxies in front of the gateway may name the client in X-Forwarded-For. Same meaning as
// Fastify's / Express's trustProxy for a hop count or a list of addresses (http/front/address.ts matches them with
// @fastify/proxy-addr, as Fastify does); "trust every hop" is not offered, as it lets any client pick its own address.
import { isIP } from 'node:net';

/** null: off (the client is the connection's peer); hops: that many proxies in front; addresses: those proxies. */
export type TrustProxy = { readonly hops: number } | { readonly addresses: readonly string[] } | null;

const MAX_HOPS = 32;
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR (address/prefix length) or one of proxy-addr's range names. */
function isProxyAddress(a: string): boolean {
  if (RANGE_NAMES.has(a)) return true;
  const slash = a.indexOf('/');
  const family = isIP(slash < 0 ? a : a.slice(0, slash));
  if (family === 0) return false;
  if (slash < 0) return true;
  const bits = a.slice(slash + 1);
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Parse the variable's value; `fail` is called with a message naming the problem. */
export function parseTrustProxy(raw: string | undefined, fail: (message: string) => never): TrustProxy {
  const v = (raw ?? '').trim();
  if (v === '' || /^(false|off|no|0)$/i.test(v)) return null;
  if (/^(true|yes|on|all)$/i.test(v)) {
    fail(
      'TOLLWAY_TRUST_PROXY: trusting every hop would let any client choose its own address; give the number of proxies in front of the gateway (1) or their addresses/CIDRs',
    );
  }
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_HOPS) fail(`TOLLWAY_TRUST_PROXY: a hop count must be between 1 and ${MAX_HOPS}, got ${hops}`);
    return { hops };
  }
  const addresses = v
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const bad = addresses.find((a) => !isProxyAddress(a));
  if (bad !== undefined)
    fail(
      `TOLLWAY_TRUST_PROXY: "${bad}" is not an address or CIDR (a hop count, or a comma list of addresses, CIDRs, loopback, linklocal, uniquelocal)`,
    );
  return { addresses };
}
