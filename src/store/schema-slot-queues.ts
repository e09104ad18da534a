// The parallel-task queues' own state (migration 025; the tasks themselves are rows of `tasks`).
import type { Generated } from 'kysely';

export interface TaskSlotQueuesTable {
  queue: string;
  /** The queue's virtual time: the turn of the last task moved on (slot-turns.ts). */
  vtime: Generated<number>;
}

/** The turns each customer of a queue was served (its virtual finish time); none kept: at the queue's virtual time. */
export interface TaskSlotTurnsTable {
  queue: string;
  tenant: string;
  served: number;
}
