// Creating a family A task: external_task_id idempotency (per token and kind, backed by the unique index, so two
// concurrent creates yield one task) around the one task submit (core/task-submit.ts).
import { submitKling, type StoredKlingSubmit } from '../../adapters/kling/submit.ts';
import type { KlingTaskPath } from '../../adapters/kling/tasks.ts';
import { slotQueueOf } from '../../routing/task-slots.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ModeTier } from '../../vocabulary/usage.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import { isUniqueViolation } from '../../store/store-errors.ts';
import type { TaskRecord } from '../../tasks/types.ts';
import { principalOf, type CallContext, type HasState } from '../call.ts';
import { readPage } from '../../contracts/vidx.ts';
import { isTerminal } from '../../tasks/types.ts';
import { newTaskId, submitTask } from '../task-submit.ts';
import type { VideoAsk } from '../video-usage.ts';
import type { ModelEntry } from '../../catalogue/types.ts';
import { upstreamCallbackUrl, type VidxContext } from './context.ts';
import { storedKind, storedKinds, type VidxKind } from './views.ts';

/** The stored kinds of a client path's tasks. */
const kindsOf = (kind: VidxKind): string[] => storedKinds(kind).map((s) => s.kind);

export interface NewVidxTask {
  /** The client path's kind (its lookups, list and external ids span every stored kind of the path). */
  kind: VidxKind;
  path: KlingTaskPath;
  publicName: string;
  billingModel: string;
  upstreamModel: string;
  /** The entry whose price applies: its channels are refused for it when an account is not entitled. */
  entry: ModelEntry;
  channels: readonly Channel[];
  /** Public request fields kept with the task (shown back, used in callbacks). */
  request: Record<string, unknown>;
  tier: ModeTier;
  seconds: number;
  /** What else the price depends on (sound, voice, shots, a resolution beside the mode). */
  ask?: Omit<VideoAsk, 'seconds' | 'mode'>;
  externalTaskId?: string | undefined;
  callbackUrl?: string | undefined;
  sessionId?: string | undefined;
  /** The vendor body for this task id and upstream callback address. */
  body(taskId: string, upstreamCallback: string | null): Record<string, unknown>;
}

export async function createVidxTask(ctx: VidxContext, req: CallContext, t: NewVidxTask): Promise<TaskRecord> {
  const { deps } = ctx;
  const tokenId = principalOf(req).tokenId;
  const ext = t.externalTaskId;
  if (ext) {
    const existing = await earlierAttempt(deps, tokenId, t.kind, ext);
    if (existing) return existing;
  }
  const id = newTaskId('task');
  // Kling counts parallel tasks per account and model version: over them the task waits in the gateway (slot-queue.ts).
  const stored: StoredKlingSubmit = { path: t.path, body: t.body(id, upstreamCallbackUrl(ctx, id)) };
  try {
    return await submitTask(deps, req, {
      id,
      family: 'vidx',
      kind: storedKind(t.kind, t.path),
      model: t,
      channels: t.channels,
      request: t.request,
      size: { ...t.ask, seconds: t.seconds, mode: t.tier },
      externalTaskId: ext ?? null,
      callbackUrl: t.callbackUrl ?? null,
      sessionId: t.sessionId ?? null,
      slot: (first) => ({ queue: slotQueueOf(first, t.upstreamModel), stored }),
      // A lost answer is looked up by external_task_id = our id.
      send: (ch, taskId) =>
        submitKling(ctx.client, ch, stored, taskId, (rid) => void (req.state.upstreamRequestId = rid)),
    });
  } catch (e) {
    // Lost the race for this external_task_id: the winner's task is the answer (no second hold, no second upstream
    // task).
    if (ext && isUniqueViolation(e)) {
      const winner = await earlierAttempt(deps, tokenId, t.kind, ext);
      if (winner) return winner;
      throw new GatewayError('conflict', `A task with external_task_id ${ext} is being created; retry shortly`, {
        param: 'external_task_id',
      });
    }
    throw e;
  }
}

/**
 * The task an earlier attempt with this external_task_id made, as a retry's answer — once that attempt's submit is
 * over: while its row is still leased by the request sending it, the upstream may yet refuse it and the row go, so
 * the retry waits for it (at most until its submit deadline, the lease) rather than answer with a task id that would
 * then not exist (a `waiting` row its request is still trying is waited for too). Null when there is none (any more):
 * the retry creates the task itself. A row left `submitting` for the lost-submit recovery, or parked `waiting` for a
 * slot, is an answer: it ends in a terminal state either way.
 */
async function earlierAttempt(
  deps: VidxContext['deps'],
  tokenId: string,
  kind: VidxKind,
  ext: string,
): Promise<TaskRecord | null> {
  const kinds = kindsOf(kind);
  for (let wait = 25; ; wait = Math.min(wait * 2, 250)) {
    const t = await deps.tasks.repo.findByExternal(tokenId, kinds, ext);
    const beingSent =
      t &&
      (t.state === 'submitting' || t.state === 'waiting') &&
      t.leaseOwner !== null &&
      (t.leaseUntil ?? 0) > Date.now();
    if (!beingSent) return t ?? null;
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** By our task id, else by the caller's external_task_id; refreshed from the upstream when stale. */
export async function findOwnTask(
  ctx: VidxContext,
  req: HasState,
  kind: VidxKind,
  idOrExternal: string,
): Promise<TaskRecord> {
  const tokenId = principalOf(req).tokenId;
  const { tasks } = ctx.deps;
  const kinds = kindsOf(kind);
  let t = await tasks.repo.getFor(idOrExternal, tokenId);
  if (!t || !kinds.includes(t.kind)) t = await tasks.repo.findByExternal(tokenId, kinds, idOrExternal);
  if (!t || !kinds.includes(t.kind))
    throw new GatewayError('task_not_found', `Task ${idOrExternal} not found`, { param: 'task_id' });
  const fresh = (await tasks.getFresh(t.id, tokenId)) ?? t;
  if (isTerminal(fresh.state) && fresh.callbackUrl) ctx.kick();
  req.state.model = fresh.model;
  return fresh;
}

/** The caller's own tasks of one kind, newest first (the upstream account's list would show every tenant's). */
export async function listOwnTasks(
  ctx: VidxContext,
  req: HasState,
  kind: VidxKind,
  query: Record<string, unknown>,
): Promise<TaskRecord[]> {
  const { pageNum, pageSize } = readPage(query);
  return ctx.deps.tasks.repo.listFor(principalOf(req).tokenId, {
    family: 'vidx',
    kind: kindsOf(kind),
    limit: pageSize,
    offset: (pageNum - 1) * pageSize,
  });
}
