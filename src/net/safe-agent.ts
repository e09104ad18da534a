// undici Agents whose DNS lookup refuses forbidden addresses. Checking at connect time (rather than
// resolving once beforehand and connecting later) closes the DNS-rebinding gap: the address that is
// checked is the address the socket connects to.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { Agent } from 'undici';
import { forbiddenAddressReason } from './address-policy.ts';

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Raised inside the connector when every address of a host is forbidden. */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
  readonly code = 'ERR_TOLLWAY_FORBIDDEN_ADDRESS';
  constructor(readonly reason: string) {
    super(`the host resolves to a ${reason}`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A net.connect-compatible lookup. Any forbidden address makes the whole host refused: a host that
 * mixes public and private answers is either misconfigured or an attack, and skipping the bad ones
 * would let a rebinding server win on retry.
 */
export function guardedLookup(resolve: Resolver) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, cb: LookupCallback): void => {
    resolve(hostname)
      .then((addrs) => {
        const wanted =
          options.family === 4 || options.family === 6 ? addrs.filter((a) => a.family === options.family) : addrs;
        if (wanted.length === 0) {
          const e: NodeJS.ErrnoException = new Error(`no address for ${hostname}`);
          e.code = 'ENOTFOUND';
          return cb(e, []);
        }
        for (const a of wanted) {
          const why = forbiddenAddressReason(a.address);
          if (why) return cb(new ForbiddenAddressError(why), []);
        }
        if (options.all) return cb(null, wanted);
        const first = wanted[0]!;
        cb(null, first.address, first.family);
      })
      .catch((e: unknown) => cb(e instanceof Error ? (e as NodeJS.ErrnoException) : new Error(String(e)), []));
  };
}

/** Same resolver, no address check: for trusted origins and allowPrivate. */
function plainLookup(resolve: Resolver) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, cb: LookupCallback): void => {
    resolve(hostname)
      .then((addrs) => {
        const wanted =
          options.family === 4 || options.family === 6 ? addrs.filter((a) => a.family === options.family) : addrs;
        const first = wanted[0];
        if (!first) return cb(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
        if (options.all) return cb(null, wanted);
        cb(null, first.address, first.family);
      })
      .catch((e: unknown) => cb(e instanceof Error ? (e as NodeJS.ErrnoException) : new Error(String(e)), []));
  };
}

export interface SafeAgents {
  /** Connects only to public addresses. */
  strict: Agent;
  /** For trusted origins / allowPrivate: no address check. */
  permissive: Agent;
  close(): Promise<void>;
}

export function createSafeAgents(resolve: Resolver = systemResolver, connectTimeoutMs = 5_000): SafeAgents {
  const strict = new Agent({
    connect: { timeout: connectTimeoutMs, lookup: guardedLookup(resolve) },
    keepAliveTimeout: 10_000,
  });
  const permissive = new Agent({
    connect: { timeout: connectTimeoutMs, lookup: plainLookup(resolve) },
    keepAliveTimeout: 10_000,
  });
  return {
    strict,
    permissive,
    close: async () => {
      await Promise.all([strict.close(), permissive.close()].map((p) => p.catch(() => undefined)));
    },
  };
}

/** True when `e` or anything in its cause chain is a ForbiddenAddressError. */
export function findForbidden(e: unknown): ForbiddenAddressError | null {
  let cur: unknown = e;
  for (let i = 0; i < 6 && cur; i++) {
    if (cur instanceof ForbiddenAddressError) return cur;
    if (cur instanceof AggregateError) {
      for (const inner of cur.errors) {
        const f = findForbidden(inner);
        if (f) return f;
      }
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return null;
}
