// A Kling task creation whose answer was lost (reset after sending, timeout, 5xx) may or may not have
// been accepted. Our task id is sent as the upstream `external_task_id` (unique per account), so the
// ambiguity is resolved by asking that channel for it: found → adopt that upstream task; not found →
// it was never accepted; the lookup failing too → the task stays for the lost-submit recovery. The creation itself
// is never sent twice (connect-only failover).
import { isGatewayError } from '../../errors/gateway-error.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type { SubmitOutcome, UnconfirmedSubmit } from '../../tasks/types.ts';
import type { KlingClient } from './client.ts';
import { parseCreated, type KlingTaskPath } from './tasks.ts';

/** Errors after which the upstream may have accepted the creation. */
export function isAmbiguousSubmitError(e: unknown): boolean {
  return (
    isGatewayError(e) &&
    (e.code === 'upstream_error' || e.code === 'upstream_timeout' || e.code === 'upstream_unavailable')
  );
}

/**
 * Look the task up by our id (its external_task_id) on the channel it was sent to. Returns the creation outcome when
 * the upstream has it, null when it certainly does not (1203 / 404), and an UnconfirmedSubmit when the lookup
 * failed too (the task may be running there: the lost-submit recovery asks again).
 */
export async function findSubmitted(
  client: KlingClient,
  ch: Channel,
  path: KlingTaskPath,
  ourTaskId: string,
): Promise<SubmitOutcome | UnconfirmedSubmit | null> {
  try {
    const r = await client.call(ch, 'GET', `/v1/videos/${path}/${encodeURIComponent(ourTaskId)}`);
    return parseCreated(r.data, r.upstreamRequestId);
  } catch (e) {
    if (isGatewayError(e) && e.code === 'not_found') return null;
    return {
      unconfirmed: true,
      channelId: ch.id,
      upstreamRequestId: isGatewayError(e) ? (e.upstreamRequestId ?? null) : null,
    };
  }
}
