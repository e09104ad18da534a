// Whether a client's address lies in a network the operator trusts (TOLLWAY_TRUST_PROXY's addresses and CIDRs): kept
// out of http/ (and off @fastify/proxy-addr) so the composition root hands it to the admin-key limiter without loading
// the HTTP modules; node's BlockList matches the same addresses, CIDRs and range names as proxy-addr.
import { BlockList, isIP } from 'node:net';
import type { TrustProxy } from '../config/trust-proxy.ts';

/** proxy-addr's range names. */
const RANGES: Record<string, readonly string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

function add(list: BlockList, entry: string): void {
  const slash = entry.indexOf('/');
  const addr = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
  if (slash < 0) list.addAddress(addr, family);
  else list.addSubnet(addr, Number(entry.slice(slash + 1)), family);
}

/**
 * Is a client's address in a network TOLLWAY_TRUST_PROXY lists (its addresses, CIDRs and range names)? Never with a
 * hop count or without the variable: those name no network. An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function inTrustedNetwork(trustProxy: TrustProxy): (client: string) => boolean {
  if (trustProxy === null || 'hops' in trustProxy) return () => false;
  const list = new BlockList();
  for (const a of trustProxy.addresses) for (const e of RANGES[a] ?? [a]) add(list, e);
  return (client) => {
    const mapped = client.startsWith('::ffff:') && isIP(client.slice(7)) === 4 ? client.slice(7) : client;
    const family = isIP(mapped);
    return family !== 0 && list.check(mapped, family === 6 ? 'ipv6' : 'ipv4');
  };
}
