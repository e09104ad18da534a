// A claimed group of one kind's tasks on one channel, asked about with the driver's list query (pollMany): a task
// whose listed state changed is applied, one missing from the list is asked about on its own.
import type { Logger } from 'pino';
import type { Channel } from '../routing/channel-registry.ts';
import { runLimited } from './limit.ts';
import type { PollOutcome, TaskDriver, TaskRecord } from './types.ts';

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

export interface BatchPollDeps {
  logger: Logger;
  timeoutMs: number;
  pastMaxAge(t: TaskRecord): boolean;
  /** Apply a listed outcome to one task (as the poller's, joined by reads in this process). */
  apply(t: TaskRecord, out: PollOutcome): Promise<void>;
  /** Ask about one task on its own. */
  pollOne(t: TaskRecord): Promise<void>;
}

/** A round's claimed tasks by channel (each channel's are polled with its own concurrency). */
export function byChannel(claimed: readonly TaskRecord[]): Map<string, TaskRecord[]> {
  const out = new Map<string, TaskRecord[]>();
  for (const t of claimed) {
    const list = out.get(t.channelId);
    if (list) list.push(t);
    else out.set(t.channelId, [t]);
  }
  return out;
}

/** Fewer due tasks of one kind on one channel than this are asked about one by one, not listed. */
const BATCH_MIN = 4;

export type PollUnit = { task: TaskRecord } | { batch: TaskRecord[]; driver: TaskDriver; channel: Channel };

/**
 * A round's claimed tasks of one channel as poll units: single polls, or one batch per kind whose driver lists many
 * tasks with one query. A task its account's last list round saw is left out: that round asks about it when it changes.
 */
export function pollUnits(
  list: readonly TaskRecord[],
  channel: Channel | undefined,
  driverOf: (kind: string) => TaskDriver | undefined,
  covered: (account: string, upstreamTaskId: string) => boolean,
): PollUnit[] {
  const units: PollUnit[] = [];
  const batches = new Map<string, TaskRecord[]>();
  for (const t of list) {
    const driver = driverOf(t.kind);
    if (channel && driver?.queryAccount && t.upstreamTaskId && covered(driver.queryAccount(channel), t.upstreamTaskId))
      continue;
    if (channel && driver?.pollMany && t.upstreamTaskId && t.state !== 'submitting') {
      const b = batches.get(t.kind);
      if (b) b.push(t);
      else batches.set(t.kind, [t]);
    } else units.push({ task: t });
  }
  for (const [kind, tasks] of batches) {
    if (tasks.length >= BATCH_MIN) units.push({ batch: tasks, driver: driverOf(kind)!, channel: channel! });
    else for (const t of tasks) units.push({ task: t });
  }
  return units;
}

export async function pollBatch(
  d: BatchPollDeps,
  driver: TaskDriver,
  channel: Channel,
  batch: readonly TaskRecord[],
): Promise<void> {
  let outcomes: Map<string, PollOutcome>;
  try {
    outcomes = await driver.pollMany!(batch, channel, { timeoutMs: d.timeoutMs });
  } catch (e) {
    // The next polls are scheduled already (by the claim): nothing to write.
    d.logger.warn(
      { channel_id: channel.id, tasks: batch.length, err: String(e) },
      'task list query failed; backing off',
    );
    return;
  }
  const missing: TaskRecord[] = [];
  for (let i = 0; i < batch.length; i++) {
    const t = batch[i]!;
    const out = outcomes.get(t.upstreamTaskId!);
    if (!out) missing.push(t);
    else if (
      out.state !== t.state ||
      out.upstreamStatus !== t.upstreamStatus ||
      (out.progress ?? t.progress) !== t.progress ||
      d.pastMaxAge(t)
    )
      await d.apply(t, out);
    // A long list is applied in slices, so request handling is never held up behind it.
    if (i % 64 === 63) await yieldTurn();
  }
  // Not in the listed pages (an older task, or one the upstream forgot): asked about one by one.
  await runLimited(missing, 2, (t) => d.pollOne(t));
}
