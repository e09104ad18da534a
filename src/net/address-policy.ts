// Which IP addresses the gateway may send to, or let a client point an upstream at: the one outbound-address rule,
// for IP literals and DNS answers alike. The gateway fetches result files and delivers callbacks; without this
// check a hostile or mistaken URL could make it (or an upstream) reach cloud metadata (169.254.169.254), loopback
// admin ports or the private network. An IPv6 address that carries an IPv4 address (mapped, compatible, SIIT,
// NAT64, 6to4, Teredo) is judged by that IPv4 address: a translator or relay on the way would deliver it there.
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

/** Why a URL's host, when it is an IP literal, is not a public address; null for a public literal or a host name. */
export function literalHostReason(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? forbiddenAddressReason(host) : null;
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

/** An IPv6 literal as its 16 bytes (handles `::`, a zone and an embedded IPv4 tail). */
function v6Bytes(ip: string): number[] {
  let s = ip.toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const [a, b, c, d] = v4Octets(tail[1]!);
    s = `${s.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = s.split('::');
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const fill = rest === undefined ? [] : new Array<string>(8 - h.length - r.length).fill('0');
  return [...h, ...fill, ...r].flatMap((g) => {
    const n = parseInt(g || '0', 16);
    return [n >> 8, n & 255];
  });
}

const zero = (b: number[], from: number, to: number) => b.slice(from, to).every((x) => x === 0);
const v4At = (b: number[], i: number[]) => i.map((k) => b[k] ?? 0).join('.');

/** RFC 6052 places of an IPv4 address for prefixes /48, /56 and /64: its bytes, and where the zero suffix starts. */
const LOCAL_NAT64: Array<[number[], number]> = [
  [[6, 7, 9, 10], 11],
  [[7, 9, 10, 11], 12],
  [[9, 10, 11, 12], 13],
];

/** The IPv4 addresses an IPv6 address carries, with the form's name; none for a plain IPv6 address. */
function embeddedV4(b: number[]): Array<[string, string]> {
  const w = (i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
  const last = v4At(b, [12, 13, 14, 15]);
  if (zero(b, 0, 10) && w(10) === 0xffff) return [[last, 'IPv4-mapped']];
  if (zero(b, 0, 12)) return [[last, 'IPv4-compatible']];
  if (zero(b, 0, 8) && w(8) === 0xffff && w(10) === 0) return [[last, 'SIIT']];
  if (w(0) === 0x64 && w(2) === 0xff9b) {
    if (w(4) === 1) {
      // Local-use NAT64 (64:ff9b:1::/48): the translator's prefix length (48, 56, 64 or 96) is not in the address,
      // so every place RFC 6052 may have put the IPv4 address is judged — each that fits (the octet at bits 64-71
      // and the bits after the IPv4 address zero, as RFC 6052 writes them).
      const out: Array<[string, string]> = [[last, 'NAT64']];
      if (b[8] === 0) {
        for (const [at, suffix] of LOCAL_NAT64) if (zero(b, suffix, 16)) out.push([v4At(b, at), 'NAT64']);
      }
      return out;
    }
    return [[last, 'NAT64']];
  }
  if (w(0) === 0x2002) return [[v4At(b, [2, 3, 4, 5]), '6to4']];
  // Teredo: the server's address, then the client's — stored with every bit inverted.
  if (w(0) === 0x2001 && w(2) === 0) {
    const client = [12, 13, 14, 15].map((k) => 255 - (b[k] ?? 0)).join('.');
    return [
      [v4At(b, [4, 5, 6, 7]), 'Teredo server'],
      [client, 'Teredo'],
    ];
  }
  return [];
}

function v6Reason(ip: string): string | null {
  const b = v6Bytes(ip);
  const g0 = (b[0]! << 8) | b[1]!;
  if (zero(b, 0, 16)) return 'unspecified address';
  if (zero(b, 0, 15) && b[15] === 1) return 'loopback address';
  for (const [v4, form] of embeddedV4(b)) {
    const why = v4Reason(v4);
    if (why) return `${why} (${v4} in ${form} form)`;
  }
  if (g0 === 0x64 && b[2] === 0xff && b[3] === 0x9b && !zero(b, 4, 12) && !(b[4] === 0 && b[5] === 1))
    return 'reserved NAT64 address';
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local (private) address';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local address';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local address';
  if ((g0 & 0xff00) === 0xff00) return 'multicast address';
  if (g0 === 0x2001 && b[2] === 0x0d && b[3] === 0xb8) return 'documentation address';
  if (g0 === 0x100 && zero(b, 2, 8)) return 'discard-only address';
  return null;
}
