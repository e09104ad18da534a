// One Kling task creation on one channel, as a creation request and a task waiting for a slot both send it: the
// answer's task, or — when the answer was lost but the creation may have been accepted — the task found by its
// external_task_id (our task id), or an UnconfirmedSubmit when that lookup fails too. The creation is never sent twice
// on one channel; failover across channels is the caller's (connect-only).
import { isObject } from '../../json/json.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type { SubmitOutcome, UnconfirmedSubmit } from '../../tasks/types.ts';
import type { KlingClient } from './client.ts';
import { findSubmitted, isAmbiguousSubmitError } from './resolve-submit.ts';
import { parseCreated, type KlingTaskPath } from './tasks.ts';

/** What a task waiting for a slot keeps of its creation (tasks.submit_body). */
export interface StoredKlingSubmit {
  path: KlingTaskPath;
  body: Record<string, unknown>;
}

const PATHS: readonly KlingTaskPath[] = ['text2video', 'multi-elements', 'omni-video'];

export function parseStoredSubmit(v: unknown): StoredKlingSubmit | null {
  if (!isObject(v) || !isObject(v.body) || typeof v.path !== 'string' || !(PATHS as readonly string[]).includes(v.path))
    return null;
  return { path: v.path as KlingTaskPath, body: v.body };
}

/** POST the creation to `ch`; `onReply` is told the upstream request id of an answer. */
export async function submitKling(
  client: KlingClient,
  ch: Channel,
  s: StoredKlingSubmit,
  ourTaskId: string,
  onReply?: (upstreamRequestId: string | null) => void,
): Promise<SubmitOutcome | UnconfirmedSubmit> {
  try {
    const r = await client.call(ch, 'POST', `/v1/videos/${s.path}`, s.body);
    onReply?.(r.upstreamRequestId);
    return { ...parseCreated(r.data, r.upstreamRequestId), channelId: ch.id };
  } catch (e) {
    const found = isAmbiguousSubmitError(e) ? await findSubmitted(client, ch, s.path, ourTaskId) : null;
    if (!found) throw e;
    return { ...found, channelId: ch.id };
  }
}
