// Limits read from the upstream where it tells them (its Upstream.readLimits): read for every upstream account at
// start and every few minutes with the key of one of its channels. What an account's read gives replaces what it
// gave before; an account that cannot be read keeps what is stated or was learnt (and what was read last).
import type { Upstream, UpstreamClients } from '../adapters/upstream.ts';
import type { Channel } from '../routing/channel-registry.ts';
import { upstreamAccountOf } from '../routing/upstream-account.ts';
import type { Capacity } from './capacity.ts';

export interface LimitReaderDeps {
  readonly capacity: Capacity;
  readonly channels: () => readonly Channel[];
  readonly upstreamOf: (kind: Channel['kind']) => Upstream;
  readonly clients: UpstreamClients;
  readonly onError: (upstreamAccount: string, e: unknown) => void;
}

/** One round: each account's limits, read through the first enabled channel naming it. */
export async function readAllLimits(d: LimitReaderDeps): Promise<void> {
  const byAccount = new Map<string, Channel>();
  for (const c of d.channels()) {
    const a = upstreamAccountOf(c);
    if (!byAccount.has(a) && d.upstreamOf(c.kind).readLimits) byAccount.set(a, c);
  }
  await Promise.all(
    [...byAccount].map(async ([upstreamAccount, ch]) => {
      try {
        const read = await d.upstreamOf(ch.kind).readLimits!(d.clients, ch);
        d.capacity.setRead(upstreamAccount, read);
      } catch (e) {
        d.onError(upstreamAccount, e);
      }
    }),
  );
}

/** How often the reader looks whether the channels changed (a new account is read within this). */
const CHANGE_CHECK_MS = 2000;

/** Read now, every `everyMs`, and soon after the channels change; returns the stop. */
export function startLimitReader(d: LimitReaderDeps, everyMs: number, version: () => number): () => void {
  let seen = version();
  let last = Date.now();
  void readAllLimits(d);
  const timer = setInterval(
    () => {
      if (version() === seen && Date.now() - last < everyMs) return;
      seen = version();
      last = Date.now();
      void readAllLimits(d);
    },
    Math.min(everyMs, CHANGE_CHECK_MS),
  );
  timer.unref();
  return () => clearInterval(timer);
}
