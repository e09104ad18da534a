// The channel order of one call: priority levels best first, weighted-random within a level, open circuits skipped.
// A call tries at most a few channels, so only those are drawn: each draw is a binary search over the level's
// prefix sums of weights (built once per channel list, which the registry keeps until the channels change), so the
// cost of a call grows with the logarithm of a model's channel count, not with its square.
import type { Channel } from './channel-registry.ts';

interface Level {
  readonly channels: readonly Channel[];
  /** prefix[i]: the sum of the weights of channels 0..i (each weight at least 1). */
  readonly prefix: Float64Array;
}

/** Draws at random before a level's few remaining closed channels are looked for one by one. */
const DRAWS = 8;

const plans = new WeakMap<readonly Channel[], readonly Level[]>();

/** The levels of a channel list, best priority first: built once per list (a reload makes a new list). */
export function levelsOf(channels: readonly Channel[]): readonly Level[] {
  let levels = plans.get(channels);
  if (levels) return levels;
  const byPriority = new Map<number, Channel[]>();
  for (const c of channels) {
    const list = byPriority.get(c.priority);
    if (list) list.push(c);
    else byPriority.set(c.priority, [c]);
  }
  levels = [...byPriority.keys()]
    .sort((a, b) => b - a)
    .map((p) => {
      const list = byPriority.get(p)!;
      const prefix = new Float64Array(list.length);
      let sum = 0;
      list.forEach((c, i) => {
        sum += Math.max(1, c.weight);
        prefix[i] = sum;
      });
      return { channels: list, prefix };
    });
  plans.set(channels, levels);
  return levels;
}

/** The first index whose prefix sum is above r. */
function upperBound(prefix: Float64Array, r: number): number {
  let lo = 0;
  let hi = prefix.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (prefix[mid]! > r) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Up to `want` distinct channels in trying order, skipping those `isOpen` says are open. Each pick is weighted among
 * the level's channels not yet picked (a drawn channel already picked or open is drawn again, a few times, before
 * the rest of the level is scanned).
 */
export function pickChannels(
  channels: readonly Channel[],
  want: number,
  isOpen: (id: string) => boolean,
  rand: () => number,
): Channel[] {
  const out: Channel[] = [];
  const chosen = new Set<string>();
  for (const level of levelsOf(channels)) {
    const total = level.prefix[level.prefix.length - 1]!;
    while (out.length < want) {
      const next = drawOne(level, total, chosen, isOpen, rand);
      if (!next) break;
      chosen.add(next.id);
      out.push(next);
    }
    if (out.length >= want) break;
  }
  return out;
}

function drawOne(
  level: Level,
  total: number,
  chosen: ReadonlySet<string>,
  isOpen: (id: string) => boolean,
  rand: () => number,
): Channel | null {
  const usable = (c: Channel) => !chosen.has(c.id) && !isOpen(c.id);
  for (let i = 0; i < DRAWS; i++) {
    const c = level.channels[upperBound(level.prefix, rand() * total)]!;
    if (usable(c)) return c;
  }
  // Most of the level is picked or open: the weighted draw keeps missing, so take the first usable one in order.
  return level.channels.find(usable) ?? null;
}
