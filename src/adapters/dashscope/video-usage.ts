// Video usage keys vary by model (Java SDK union): duration, output_video_duration, input_video_duration,
// video_duration, SR (number or string) … Parse them into seconds and a resolution, all optional.
import { isObject } from '../../contracts/fields.ts';

export interface ParsedVideoUsage {
  outputSeconds: number | null;
  inputSeconds: number | null;
  /** `duration` as reported (for edit models: input + output). */
  totalSeconds: number | null;
  /** 720 / 1080 from SR, when present. */
  sr: number | null;
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim())) return Number(v.trim());
  return null;
}

export function parseVideoUsage(u: unknown): ParsedVideoUsage {
  if (!isObject(u)) return { outputSeconds: null, inputSeconds: null, totalSeconds: null, sr: null };
  const output = num(u.output_video_duration) ?? num(u.video_duration);
  const input = num(u.input_video_duration);
  const total = num(u.duration);
  const srRaw = typeof u.SR === 'string' ? u.SR.replace(/p$/i, '') : u.SR;
  return { outputSeconds: output, inputSeconds: input, totalSeconds: total, sr: num(srRaw) };
}

/**
 * Seconds to bill. Output basis: output duration (else `duration`). Input+output basis: in + out
 * when both are reported, else `duration` (which is already their sum for edit models) — an input reported longer
 * than that sum counts as the sum: the provider's total is billed, never a negative output that cannot be priced
 * (the task would stay unsettled until its maximum age).
 */
export function billedSeconds(p: ParsedVideoUsage, basis: 'output' | 'input+output'): { outputSeconds: number; inputSeconds: number } | null {
  const s = reportedSeconds(p, basis);
  // A success reporting 0 seconds reported nothing billable: it is charged the task's estimate, as one reporting none
  // is (and as the Kling driver treats a zero duration), never 0.
  return s !== null && s.outputSeconds + s.inputSeconds > 0 ? s : null;
}

function reportedSeconds(p: ParsedVideoUsage, basis: 'output' | 'input+output'): { outputSeconds: number; inputSeconds: number } | null {
  if (basis === 'output') {
    const out = p.outputSeconds ?? p.totalSeconds;
    return out === null ? null : { outputSeconds: out, inputSeconds: 0 };
  }
  if (p.outputSeconds !== null && p.inputSeconds !== null && p.inputSeconds + p.outputSeconds > 0) return { outputSeconds: p.outputSeconds, inputSeconds: p.inputSeconds };
  if (p.totalSeconds !== null) {
    const input = Math.min(p.inputSeconds ?? 0, p.totalSeconds);
    return { outputSeconds: p.totalSeconds - input, inputSeconds: input };
  }
  if (p.outputSeconds !== null) return { outputSeconds: p.outputSeconds, inputSeconds: p.inputSeconds ?? 0 };
  return null;
}
