// The client's address: the connection's peer, or behind trusted proxies (TOLLWAY_TRUST_PROXY) the one they name.
import proxyAddr from '@fastify/proxy-addr';
import type { TrustProxy } from '../../config/trust-proxy.ts';

/** Is the address at hop `i` (0: the connection's peer, 1: the right-most X-Forwarded-For entry, …) a trusted proxy? */
function trustFunction(t: TrustProxy): ((address: string, hop: number) => boolean) | null {
  if (t === null) return null;
  if ('hops' in t) {
    const n = t.hops;
    return (_a, hop) => hop < n;
  }
  return proxyAddr.compile([...t.addresses]);
}

/** Is the connection's peer a proxy TOLLWAY_TRUST_PROXY trusts (so its X-Forwarded-* headers may be believed)? */
export function peerIsTrustedProxy(trustProxy: TrustProxy): (peer: string | undefined) => boolean {
  const trust = trustFunction(trustProxy);
  return (peer) => trust !== null && peer !== undefined && trust(peer, 0);
}

/** The longest client address kept: an X-Forwarded-For entry is the sender's text. */
const MAX_CLIENT = 100;

/**
 * The client's address, the one rule for every use (the console's sign-in limit, the access line): the connection's
 * peer; or, with TOLLWAY_TRUST_PROXY, walking X-Forwarded-For from the right while the hop is a trusted proxy, the
 * first address that is not (as Fastify's and Express's trustProxy). Off, the header is never read, so a forged one
 * changes nothing.
 */
export function clientAddress(
  trustProxy: TrustProxy,
): (peer: string | undefined, forwardedFor: string | string[] | undefined) => string {
  const trust = trustFunction(trustProxy);
  return (peer, forwardedFor) => {
    let addr = peer ?? '';
    if (trust === null || forwardedFor === undefined || !trust(addr, 0)) return addr;
    const hops = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',');
    for (let i = hops.length - 1, hop = 1; i >= 0; i--) {
      const h = hops[i]!.trim();
      if (h === '') continue;
      addr = h;
      if (!trust(h, hop++)) break;
    }
    return addr.length > MAX_CLIENT ? addr.slice(0, MAX_CLIENT) : addr;
  };
}
