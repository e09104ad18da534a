// What every family A route shares: the app deps, the Kling client (JWT signer inside), the
// sessions repo, and how to build the upstream callback address for a task.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FieldOptions } from '../../contracts/vidx.ts';
import { forbiddenAddressReason } from '../../net/address-policy.ts';
import type { VidxContext } from '../deps.ts';

export type { VidxContext };

export const UPSTREAM_CALLBACK_PREFIX = '/vidx/callbacks/kling/';

export function fieldOptions(ctx: VidxContext): FieldOptions {
  return { allowPrivateNetwork: ctx.deps.config.allowPrivateNetwork, forbiddenReason: forbiddenAddressReason };
}

function tagOf(key: string, taskId: string): string {
  return createHmac('sha256', key).update(`kling-callback:${taskId}`).digest('hex').slice(0, 32);
}

/** `${publicUrl}/vidx/callbacks/kling/<task id>.<tag>` when a public URL is configured, else null. */
export function upstreamCallbackUrl(ctx: VidxContext, taskId: string): string | null {
  const base = ctx.deps.config.publicUrl;
  if (!base) return null;
  return `${base.replace(/\/+$/, '')}${UPSTREAM_CALLBACK_PREFIX}${taskId}.${tagOf(ctx.callbackKey, taskId)}`;
}

/** The task id named by a callback reference, or null when the tag does not verify. */
export function verifyCallbackRef(ctx: VidxContext, ref: string): string | null {
  const dot = ref.lastIndexOf('.');
  if (dot <= 0) return null;
  const taskId = ref.slice(0, dot);
  const given = Buffer.from(ref.slice(dot + 1));
  const want = Buffer.from(tagOf(ctx.callbackKey, taskId));
  return given.length === want.length && timingSafeEqual(given, want) ? taskId : null;
}
