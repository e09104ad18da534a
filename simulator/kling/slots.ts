// Kling's parallel-task limit (upstream-protocols.md §7 "Concurrency"): counted per account and model version, shared
// by every key of the account; a task holds a slot from its creation until it ends (failures included); over the
// limit a creation is answered HTTP 429 code 1303 and creates nothing. The simulator has one account (its access
// key), so the book is the simulator's; each model version has its own count.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import { klingErr } from './envelope.ts';
import { isVanished, type SlotBook, statusOf, type KlingState, type KlingTask } from './state.ts';

export { newSlotBook, type SlotBook } from './state.ts';

/** Parallel tasks per model version on the simulated account unless a test sets otherwise (a small resource pack). */
export const DEFAULT_KLING_TASK_SLOTS = 5;

/** A task ends at its terminal state; a vanished task no longer exists upstream, so it holds nothing either. */
const ended = (t: KlingTask, now: number): boolean => {
  const st = statusOf(t, now);
  return st === 'succeed' || st === 'failed' || isVanished(t, now);
};

/** The model's open tasks now (ended ones leave the book as they are seen). */
function openOf(book: SlotBook, model: string, now = Date.now()): Set<KlingTask> {
  let set = book.open.get(model);
  if (!set) book.open.set(model, (set = new Set()));
  for (const t of set) if (ended(t, now)) set.delete(t);
  return set;
}

/**
 * Refuse a creation of `model` over the limit (answered here, 429 / 1303: the caller creates nothing and returns);
 * false when a slot is free. 0 = no limit.
 */
export function refuseOverLimit(ctx: SimContext, s: KlingState, model: string, res: ServerResponse): boolean {
  const limit = ctx.opts.klingTaskSlots;
  if (limit <= 0 || openOf(s.slots, model).size < limit) return false;
  s.slots.refused += 1;
  klingErr(res, 429, 1303, 'parallel task over resource pack limit');
  return true;
}

/** A created task takes its slot until it ends. */
export function holdSlot(s: KlingState, t: KlingTask): void {
  const set = openOf(s.slots, t.model);
  set.add(t);
  s.slots.peak.set(t.model, Math.max(s.slots.peak.get(t.model) ?? 0, set.size));
}
