// A scripted upstream account with a number of parallel-task slots (Kling's limit), for the slot-queue tests.
import { expect } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import type { SubmitOutcome, TaskRecord } from '../../src/tasks/types.ts';
import { ScriptedDriver } from './task-engine.ts';

/** An upstream account with `slots` parallel tasks: refuses over them (1303), records what it took, in order. */
export class SlotUpstream {
  open = new Set<string>();
  accepted: string[] = [];
  /** Every creation sent, refused or not: task id per attempt. */
  attempts: string[] = [];
  delayMs = 0;
  /** While set, every creation is held here until the test resolves it. */
  gate: Promise<void> | null = null;
  private entered: ((taskId: string) => void) | null = null;
  constructor(public slots: number) {}

  /** Resolves with the task id of the next creation the upstream receives. */
  nextAttempt(): Promise<string> {
    return new Promise((r) => (this.entered = r));
  }

  async accept(taskId: string): Promise<SubmitOutcome> {
    this.attempts.push(taskId);
    this.entered?.(taskId);
    this.entered = null;
    if (this.gate) await this.gate;
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.open.size >= this.slots)
      throw new GatewayError(
        'concurrency_limited',
        'Upstream concurrency limit reached: parallel task over resource pack limit',
      );
    this.open.add(taskId);
    this.accepted.push(taskId);
    return { upstreamTaskId: `up_${taskId}`, upstreamRequestId: 'rid' };
  }
}

/** The scripted driver, able to send a stored creation (as the Kling driver does) to the same account. */
export class SlotDriver extends ScriptedDriver {
  constructor(private readonly up: SlotUpstream) {
    super();
  }
  submitStored(task: TaskRecord, stored: unknown): Promise<SubmitOutcome> {
    expect(stored).toEqual({ path: 'text2video', body: { prompt: `for ${task.id}` } });
    return this.up.accept(task.id);
  }
}
