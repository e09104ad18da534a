// In-memory state of the simulated Kling account: tasks (text2video, multi-elements, omni-video),
// selection sessions, and the callbacks it sent (for tests to observe).
import { randomInt } from 'node:crypto';
import type { SimContext } from '../context.ts';

export type KlingTaskKind = 'text2video' | 'multi-elements' | 'omni-video';
export type KlingTaskFault = 'fail-task' | 'stay-running' | 'vanish' | null;

export interface KlingVideo {
  id: string;
  url: string;
  watermark_url: string;
  duration: string;
  session_id?: string;
}

export interface KlingTask {
  id: string;
  kind: KlingTaskKind;
  model: string;
  mode: string;
  externalTaskId: string | null;
  callbackUrl: string | null;
  sessionId: string | null;
  watermark: boolean;
  createdAt: number;
  /** When the task reaches its terminal state (ms since epoch). */
  finishAt: number;
  fault: KlingTaskFault;
  /** Requested seconds; the reported duration is slightly longer, as the real API reports (e.g. "5.1"). */
  seconds: number;
  /** Made with sound; at a resolution named beside the mode (Kling 3.0's 4k). */
  sound: boolean;
  resolution: string | null;
  /** A deduction to report instead of the account's own (the `deduct` fault: an upstream billing wrongly). */
  deduction: number | null;
  videos: KlingVideo[];
}

/**
 * Units the account deducts for a task: per second 0.2 (std), 0.7 (pro), 1.0 (4k), half as much again with sound,
 * rounded to thousandths as the upstream writes them.
 */
export function unitsDeducted(t: KlingTask): number {
  if (t.deduction !== null) return t.deduction;
  const perSecond = t.resolution === '4k' ? 1 : t.mode === 'pro' ? 0.7 : 0.2;
  return Math.round(t.seconds * perSecond * (t.sound ? 1.5 : 1) * 1000) / 1000;
}

export interface Selection {
  frameIndex: number;
  points: Array<{ x: number; y: number }>;
}

export interface KlingSession {
  id: string;
  createdAt: number;
  expiresAt: number;
  fps: number;
  duration: number;
  width: number;
  height: number;
  totalFrame: number;
  selections: Selection[];
}

export interface SentCallback {
  url: string;
  body: unknown;
  status: number | null;
  at: number;
}

/** What the simulator saw of its limit, for tests: the most tasks of one model open at once, and the refusals. */
export interface SlotBook {
  /** Model version → its tasks not yet ended. */
  open: Map<string, Set<KlingTask>>;
  /** Model version → the most of its tasks that were open at once. */
  peak: Map<string, number>;
  /** Creations refused with 1303. */
  refused: number;
}

export const newSlotBook = (): SlotBook => ({ open: new Map(), peak: new Map(), refused: 0 });

export interface KlingState {
  tasks: Map<string, KlingTask>;
  /** Our (simulated) account's external ids: unique per account. */
  byExternal: Map<string, string>;
  sessions: Map<string, KlingSession>;
  /** Upstream video id → the video and its task (for init-selection by video_id). */
  videos: Map<string, { task: KlingTask; video: KlingVideo }>;
  callbacks: SentCallback[];
  timers: Set<NodeJS.Timeout>;
  /** The account's parallel tasks per model version (slots.ts). */
  slots: SlotBook;
}

export function klingState(ctx: SimContext): KlingState {
  let s = ctx.state.get('kling') as KlingState | undefined;
  if (!s) {
    s = {
      tasks: new Map(),
      byExternal: new Map(),
      sessions: new Map(),
      videos: new Map(),
      callbacks: [],
      timers: new Set(),
      slots: newSlotBook(),
    };
    ctx.state.set('kling', s);
  }
  return s;
}

/** Numeric-looking ids like the real API's (`8419…`). */
export function numericId(): string {
  let s = String(randomInt(1, 10));
  for (let i = 0; i < 17; i++) s += String(randomInt(0, 10));
  return s;
}

export type KlingStatus = 'submitted' | 'processing' | 'succeed' | 'failed';

/** The task's state now: derived from the clock, so a query always sees fresh progress. */
export function statusOf(t: KlingTask, now = Date.now()): KlingStatus {
  const total = t.finishAt - t.createdAt;
  if (now < t.createdAt + total * 0.2) return 'submitted';
  if (now < t.finishAt) return 'processing';
  if (t.fault === 'fail-task') return 'failed';
  if (t.fault === 'stay-running') return 'processing';
  return 'succeed';
}

/** A vanished task is forgotten by the upstream once it has started. */
export function isVanished(t: KlingTask, now = Date.now()): boolean {
  return t.fault === 'vanish' && statusOf(t, now) !== 'submitted';
}

/** The query's `data` object (also the callback body). */
export function taskData(t: KlingTask, now = Date.now()): Record<string, unknown> {
  const status = statusOf(t, now);
  const data: Record<string, unknown> = {
    task_id: t.id,
    task_status: status,
    task_status_msg: status === 'failed' ? 'Task failed: simulated generation failure' : '',
    task_info: t.externalTaskId ? { external_task_id: t.externalTaskId } : {},
    watermark_info: { enabled: t.watermark },
    created_at: t.createdAt,
    updated_at:
      status === 'succeed' || status === 'failed' ? t.finishAt : Math.max(t.createdAt, Math.min(now, t.finishAt)),
  };
  if (status === 'succeed') {
    data.task_result = { videos: t.videos };
    data.final_unit_deduction = String(unitsDeducted(t));
  } else {
    data.task_result = {};
  }
  if (t.sessionId) data.session_id = t.sessionId;
  return data;
}
