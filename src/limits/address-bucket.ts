// What a client address is counted as, for the windows of unauthenticated events (address-windows.ts): an IPv4
// address as itself, an IPv6 address by its /64 prefix — one host usually holds a whole /64, so counting its
// addresses one by one would give it 2^64 fresh windows.
import { isIPv6 } from 'node:net';

/** The counted form of `address`: IPv4 (also IPv4-mapped IPv6) as is, IPv6 as `<first four groups>::/64`. */
export function addressBucket(address: string): string {
  const zone = address.indexOf('%');
  const a = (zone < 0 ? address : address.slice(0, zone)).toLowerCase();
  if (!isIPv6(a)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = a.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
