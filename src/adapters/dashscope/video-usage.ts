// Video usage keys vary by model (Java SDK union): duration, output_video_duration, input_video_duration,
// video_duration, SR (number or string) … Read them as reported: seconds and a resolution, all optional. Which of
// them are billed, and at which tier, is core/video-usage.ts's rule.
import { isObject } from '../../json/json.ts';
import type { ReportedUsage } from '../../tasks/types.ts';

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim())) return Number(v.trim());
  return null;
}

/**
 * What a task query's `usage` says: output, input and total (`duration`: input + output for edit models) seconds, SR.
 */
export function parseVideoUsage(
  u: unknown,
): Required<Pick<ReportedUsage, 'outputSeconds' | 'inputSeconds' | 'totalSeconds' | 'resolution'>> &
  Pick<ReportedUsage, 'sound' | 'videoCount'> {
  if (!isObject(u)) return { outputSeconds: null, inputSeconds: null, totalSeconds: null, resolution: null };
  const extra: Pick<ReportedUsage, 'sound' | 'videoCount'> = {};
  if (typeof u.audio === 'boolean') extra.sound = u.audio;
  const count = num(u.video_count);
  if (count !== null) extra.videoCount = count;
  const srRaw = typeof u.SR === 'string' ? u.SR.replace(/p$/i, '') : u.SR;
  return {
    outputSeconds: num(u.output_video_duration) ?? num(u.video_duration),
    inputSeconds: num(u.input_video_duration),
    totalSeconds: num(u.duration),
    resolution: num(srRaw),
    ...extra,
  };
}
