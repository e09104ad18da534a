// A task's age against the maximum (TOLLWAY_TASK_MAX_AGE_MS), and a task still `submitting` past its deadline: the
// poller's steps that end a task the upstream cannot (or can no longer) be asked about.
import type { TaskEngineDeps } from './engine-deps.ts';
import { adoptFound, LOST_SUBMIT_CODE, lookForLostSubmit } from './lost-submit.ts';
import { applyOutcome, failTask } from './settle.ts';
import type { PollOutcome, TaskDriver, TaskRecord } from './types.ts';

export function pastMaxAge(deps: TaskEngineDeps, t: TaskRecord): boolean {
  return deps.now() - t.createdAt > deps.options.maxAgeMs;
}

/**
 * The upstream's answer, weighed against the maximum age after it was asked: a task it reports ended is settled as
 * it ended whatever its age (a success found late — a poller down for a while, the last back-off step — is still
 * charged and delivered); only a task still open past the age, or one the upstream cannot be asked about, times out.
 */
export function applyAged(deps: TaskEngineDeps, t: TaskRecord, out: PollOutcome): Promise<TaskRecord> {
  const open = out.state === 'queued' || out.state === 'in_progress' || out.state === 'unknown';
  return open && pastMaxAge(deps, t) ? timedOut(deps, t) : applyOutcome(deps, t, out);
}

export function timedOut(deps: TaskEngineDeps, t: TaskRecord): Promise<TaskRecord> {
  return failTask(
    deps,
    t,
    { code: 'task_timeout', message: 'The task did not finish within the maximum task age' },
    'task exceeded the maximum age',
  );
}

/**
 * A task still `submitting` after its deadline (see lost-submit.ts): adopt what the upstream has, else fail uncharged.
 */
export async function recoverSubmit(
  deps: TaskEngineDeps,
  driver: TaskDriver | undefined,
  t: TaskRecord,
): Promise<TaskRecord> {
  const step = await lookForLostSubmit(t, driver, deps.channels.forTask(t.channelId), deps.options, deps.now());
  if (step.do === 'fail')
    return failTask(deps, t, { code: LOST_SUBMIT_CODE, message: step.message }, `lost submit: ${step.why}`);
  if (step.do === 'back-off') {
    deps.logger.warn(
      { task_id: t.id, kind: t.kind, channel_id: t.channelId, reason: step.why },
      'lost task submit not looked up yet; backing off',
    );
    return t; // the next poll is already scheduled (the claim set it by back-off)
  }
  if (step.do === 'look-again') {
    await deps.repo.transition(t.id, 'submitting', { pollAttempts: t.pollAttempts + 1, nextPollAt: step.at });
    return (await deps.repo.get(t.id)) ?? t;
  }
  return adoptFound(deps.repo, deps.logger, t, step.found, deps.now());
}
