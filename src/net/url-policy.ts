// The URL-level half of outbound safety: scheme, host allow-list, trusted origins and IP literals.
// The address-level half (what a host name resolves to) is checked at connect time in safe-agent.ts.
import { isIP } from 'node:net';
import { GatewayError } from '../errors/gateway-error.ts';
import { forbiddenAddressReason } from './address-policy.ts';

export interface OutboundPolicy {
  /**
   * Host names the gateway may fetch from. Exact match; an entry `*.example.com` or `.example.com` matches sub-domains;
   * a `*` inside the first label (`results-*.cdn.example.com`) matches that one label only.
   */
  allowHosts: readonly string[];
  /**
   * Exact origins (scheme://host[:port]) trusted even on private addresses and over plain http (the demo simulator).
   */
  trustedOrigins?: readonly string[];
  /** Allow loopback/private addresses and plain http for every allowed host (tests, demo). */
  allowPrivate?: boolean;
}

export interface CheckedUrl {
  url: URL;
  /** True when this URL may connect to private/loopback addresses (trusted origin or allowPrivate). */
  privateOk: boolean;
}

export function refused(reason: string): GatewayError {
  return new GatewayError('download_refused', `The result download was refused: ${reason}`);
}

function normalOrigin(o: string): string | null {
  try {
    return new URL(o).origin.toLowerCase();
  } catch {
    return null;
  }
}

/** `results-*` against one label: `*` stands for one or more host-name characters, never a dot. */
function labelMatches(pattern: string, label: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
      .join('[a-z0-9-]+')}$`,
  );
  return re.test(label);
}

export function hostAllowed(host: string, allowHosts: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  for (const raw of allowHosts) {
    const e = raw.trim().toLowerCase();
    if (!e) continue;
    if (e.startsWith('*.') || e.startsWith('.')) {
      const suffix = e.startsWith('*.') ? e.slice(1) : e;
      if (h.endsWith(suffix) && h.length > suffix.length) return true;
    } else if (e.includes('*')) {
      const dot = e.indexOf('.');
      const rest = e.slice(dot);
      // Only the first label may hold a `*`; the rest of the name must be equal.
      if (
        dot > 0 &&
        !rest.includes('*') &&
        h.endsWith(rest) &&
        labelMatches(e.slice(0, dot), h.slice(0, h.length - rest.length))
      )
        return true;
    } else if (h === e) {
      return true;
    }
  }
  return false;
}

/** Validate a URL against the policy before any connection is made; throws download_refused. */
export function checkUrl(raw: string | URL, policy: OutboundPolicy): CheckedUrl {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : new URL(raw.href);
  } catch {
    throw refused('the URL is not valid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused(`scheme ${url.protocol} is not allowed`);
  if (url.username || url.password) throw refused('URLs with credentials are not allowed');
  const trusted = (policy.trustedOrigins ?? []).some((o) => normalOrigin(o) === url.origin.toLowerCase());
  if (trusted) return { url, privateOk: true };
  const privateOk = policy.allowPrivate === true;
  if (url.protocol === 'http:' && !privateOk) throw refused('only https downloads are allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!hostAllowed(host, policy.allowHosts)) throw refused('the host is not on the result-host allow-list');
  // An IP literal never goes through DNS, so judge it here.
  if (isIP(host) && !privateOk) {
    const why = forbiddenAddressReason(host);
    if (why) throw refused(`the host is a ${why}`);
  }
  return { url, privateOk };
}
