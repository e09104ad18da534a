// What the task engine's parts are handed (the engine builds it once; create, slot-queue, settle, cancel and the age
// checks take it): a module of its own, so those parts do not import the engine that imports them.
import type { Logger } from 'pino';
import type { QueryRate } from '../limits/query-rate.ts';
import type { Meter, Usage } from '../metering/types.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { SlotQueueRepo } from '../store/repos/slot-queue.ts';
import type { TasksRepo } from '../store/repos/tasks.ts';
import type { TaskEngineOptions } from './options.ts';
import type { ReportedUsage, TaskRecord } from './types.ts';

export interface TaskEngineDeps {
  repo: TasksRepo;
  /** Lazy: the gateway builds the meter in the same deps literal. */
  meter: () => Meter;
  channels: { forTask(id: string): Channel | undefined };
  /** What a finished task is charged, from what its upstream reported (core/video-usage.ts finishedTaskUsage). */
  chargedUsage(task: TaskRecord, reported: ReportedUsage | undefined): Usage | null;
  logger: Logger;
  options: TaskEngineOptions;
  /** The parallel-task queues (slot-queue.ts); absent: no task waits for a slot. */
  slots?: SlotDeps;
  /** The lease owner (a poller thread keeps its instance's across restarts); absent: a new one. */
  owner?: string | undefined;
  /** Upstream task queries per account (limits/query-rate.ts); absent: not rate-limited. */
  queryRate?: QueryRate;
  /** The clock of task times (due polls, leases, ages, waits): the meter's unless given, so a test moves both. */
  now: () => number;
}

/** The parallel-task queues (slot-queue.ts). */
export interface SlotDeps {
  repo: SlotQueueRepo;
  /** The operator's task_slots for the queue's account (null: not set; the upstream's refusals tell). */
  limitOf(queue: string): number | null;
  /** Submits of one queue in flight at once (TOLLWAY_TASK_QUEUE_SUBMITS). */
  submits: number;
}
