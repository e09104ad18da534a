// The limits of one upstream account x model: requests and tokens per minute, calls at once. Stated by the operator
// on channels (model_limits), read from the upstream's quota endpoint, or learnt from its refusals.

import type { ChannelModelLimits, ModelLimits } from '../store/repos/channels.ts';

export type { ChannelModelLimits, ModelLimits };

/** The limits in force for an account x model (null: none of that kind). */
export interface Limits {
  rpm: number | null;
  tpm: number | null;
  concurrency: number | null;
}

export const LIMIT_KINDS = ['rpm', 'tpm', 'concurrency'] as const;

/** Which upstream limit refused a call (GatewayError.upstreamLimit); null when its answer did not say. */
export type RefusedLimit = 'requests' | 'tokens' | 'burst' | null;

export const NO_LIMITS: Limits = Object.freeze({ rpm: null, tpm: null, concurrency: null });

export const hasAny = (l: Limits): boolean => l.rpm !== null || l.tpm !== null || l.concurrency !== null;

/**
 * A model_limits value as sent to the admin API: null clears; otherwise an object of model name (or "*") to an
 * object of positive integers rpm / tpm / concurrency. Returns the error naming the field, or the value.
 */
export function parseModelLimits(v: unknown): { value: ChannelModelLimits | null } | { error: string } {
  if (v === null) return { value: null };
  if (typeof v !== 'object' || Array.isArray(v))
    return { error: 'model_limits must be an object of model name to limits, or null' };
  const out: Record<string, ModelLimits> = {};
  for (const [model, lim] of Object.entries(v as Record<string, unknown>)) {
    const at = `model_limits[${JSON.stringify(model)}]`;
    if (model === '') return { error: 'model_limits: a model name must not be empty' };
    if (typeof lim !== 'object' || lim === null || Array.isArray(lim))
      return { error: `${at} must be an object with rpm, tpm or concurrency` };
    const one: ModelLimits = {};
    for (const [k, n] of Object.entries(lim as Record<string, unknown>)) {
      if (!(LIMIT_KINDS as readonly string[]).includes(k))
        return { error: `${at}.${k} is not a limit (rpm, tpm, concurrency)` };
      if (!Number.isSafeInteger(n) || (n as number) < 1) return { error: `${at}.${k} must be a positive integer` };
      one[k as keyof ModelLimits] = n as number;
    }
    if (Object.keys(one).length === 0) return { error: `${at} must name at least one of rpm, tpm, concurrency` };
    out[model] = one;
  }
  return { value: Object.keys(out).length ? out : null };
}

/** The limits a channel states for a model: its own entry, else its "*" entry. */
export function statedFor(limits: ChannelModelLimits | null, model: string): Readonly<ModelLimits> | undefined {
  if (limits === null) return undefined;
  return limits[model] ?? limits['*'];
}

/** Smallest of two limits (null: none). */
export const smaller = (a: number | null, b: number | undefined | null): number | null =>
  b == null ? a : a === null ? b : Math.min(a, b);
