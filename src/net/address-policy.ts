// Which IP addresses an outbound download may reach. The gateway fetches result files on the
// upstream's behalf; without this check a hostile or mistaken URL could make it read cloud metadata
// (169.254.169.254), loopback admin ports or the private network.
import { isIP } from 'node:net';

/** Why an address is forbidden, or null when it is a public unicast address. */
export function forbiddenAddressReason(ip: string): string | null {
  const v = isIP(ip);
  if (v === 4) return v4Reason(ip);
  if (v === 6) return v6Reason(ip);
  return 'not an IP address';
}

export function isForbiddenAddress(ip: string): boolean {
  return forbiddenAddressReason(ip) !== null;
}

function v4Octets(ip: string): [number, number, number, number] {
  const p = ip.split('.').map(Number);
  return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0, p[3] ?? 0];
}

function v4Reason(ip: string): string | null {
  const [a, b, c] = v4Octets(ip);
  if (a === 0) return 'unspecified/this-network address';
  if (a === 127) return 'loopback address';
  if (a === 10) return 'private address';
  if (a === 172 && b >= 16 && b <= 31) return 'private address';
  if (a === 192 && b === 168) return 'private address';
  if (a === 169 && b === 254) return 'link-local/metadata address';
  if (a === 100 && b >= 64 && b <= 127) return 'shared (CGNAT) address';
  if (a === 192 && b === 0 && c === 0) return 'IETF protocol address';
  if (a === 192 && b === 0 && c === 2) return 'documentation address';
  if (a === 198 && (b === 18 || b === 19)) return 'benchmarking address';
  if (a === 198 && b === 51 && c === 100) return 'documentation address';
  if (a === 203 && b === 0 && c === 113) return 'documentation address';
  if (a >= 224) return 'multicast/reserved address';
  return null;
}

/** Expand an IPv6 literal into eight 16-bit groups (handles `::` and an embedded IPv4 tail). */
function v6Groups(ip: string): number[] {
  let s = ip.toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const [a, b, c, d] = v4Octets(tail[1]!);
    s = s.slice(0, -tail[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = s.split('::');
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const fill = rest === undefined ? [] : new Array<string>(8 - h.length - r.length).fill('0');
  return [...h, ...fill, ...r].map((g) => parseInt(g || '0', 16));
}

function v6Reason(ip: string): string | null {
  const g = v6Groups(ip);
  const g0 = g[0] ?? 0;
  if (g.every((x) => x === 0)) return 'unspecified address';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback address';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible / NAT64 forms carry an IPv4 address: judge that.
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  const nat64 = g0 === 0x64 && g[1] === 0xff9b;
  if (mapped || nat64) {
    const hi = g[6] ?? 0;
    const lo = g[7] ?? 0;
    return v4Reason(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local (private) address';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local address';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local address';
  if ((g0 & 0xff00) === 0xff00) return 'multicast address';
  if (g0 === 0x2001 && g[1] === 0x0db8) return 'documentation address';
  return null;
}
