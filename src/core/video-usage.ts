// A video task's usage: what it holds at creation (from the request) and what it is charged at the end (the upstream's
// report over that estimate). Both are priced by the one video price rule (pricing/video-price.ts priceVideo) at the
// prices fixed on the task's hold (pricing/price-terms.ts), so a report equal to the request charges what was held.
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ModelEntry } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { ModeTier, Usage, VideoTier } from '../metering/types.ts';
import { priceDefaultsOf } from '../pricing/prices.ts';
import { asVideoPrice, VIDEO_RESOLUTIONS } from '../pricing/video-price.ts';
import type { ReportedUsage, TaskRecord } from '../tasks/types.ts';
import type { VideoExtras, VideoUsage } from '../vocabulary/usage.ts';

/** What a video creation asks for, as far as its price depends on it. */
export interface VideoAsk {
  seconds?: number;
  /** Family B: the resolution tier; family A: a resolution beside the mode, where the model takes one. */
  resolution?: VideoTier;
  mode?: ModeTier;
  sound?: boolean;
  voice?: boolean;
  shots?: number;
  /** Seconds of input video, where the request says (else the requested length is assumed). */
  inputSeconds?: number;
}

/** The model bills seconds of input video (an edit on input + output, or a price per input second). */
function billsInput(entry: ModelEntry): boolean {
  const p = asVideoPrice(entry.price);
  return p !== null && (p.basis === 'input+output' || (p.inputPerSecond ?? 0) > 0);
}

function extrasOf(ask: VideoAsk): VideoExtras {
  const x: VideoExtras = {};
  if (ask.sound) x.sound = true;
  if (ask.voice) x.voice = true;
  if (ask.shots !== undefined && ask.shots > 0) x.shots = ask.shots;
  return x;
}

/**
 * The usage estimate of an async video task at creation — what it holds, and what a success that reports no usage
 * is charged: requested (or default) seconds at the requested (or default) tier, with the sound, voice and shots it
 * asked for. A model billing its input video counts the requested length for the input too (unknown until the
 * provider reports it), unless the request gives the input's length.
 */
export function videoEstimate(entry: ModelEntry, req: VideoAsk): Usage {
  const price = asVideoPrice(entry.price);
  if (!price) throw new GatewayError('internal_error', `metering: ${entry.id} is not a video model`);
  const input = billsInput(entry);
  if (entry.kind !== 'video') {
    const seconds = req.seconds ?? 5;
    return {
      kind: 'video-mode',
      outputSeconds: seconds,
      tier: req.mode ?? priceDefaultsOf(entry).defaultMode ?? 'std',
      ...(req.resolution ? { resolution: req.resolution } : {}),
      ...(input ? { inputSeconds: req.inputSeconds ?? seconds } : {}),
      ...extrasOf(req),
    };
  }
  const seconds = req.seconds ?? entry.video?.defaultSeconds ?? 5;
  // A /v1 request cannot turn sound off: where the price charges it, the upstream's default (on) is held.
  const sound = req.sound ?? (price.soundPerSecond ?? 0) > 0;
  return {
    kind: 'video',
    outputSeconds: seconds,
    inputSeconds: input ? (req.inputSeconds ?? seconds) : 0,
    tier: req.resolution ?? entry.video?.defaultResolution ?? '1080p',
    ...extrasOf({ ...req, sound }),
  };
}

/**
 * A larger hold than the estimate, when the estimate can fall short of the charge: a model billing its input video
 * whose length the request does not set (`hhx-1.0-video-edit`: the output is as long as the input, which the
 * upstream cuts to the model's longest) holds the longest it can bill — so parallel edits cannot take a token past
 * its quota. Undefined otherwise (the estimate is held).
 */
export function videoHold(entry: ModelEntry, estimate: Usage): Usage | undefined {
  if (estimate.kind !== 'video' || !billsInput(entry) || entry.video?.duration !== false) return undefined;
  return { ...estimate, outputSeconds: entry.video.maxSeconds, inputSeconds: entry.video.maxSeconds };
}

/**
 * DashScope reports the output resolution as `SR` (720, 1080). ≥1080 is the 1080p tier; anything lower (480P
 * included) 720p: the two tiers of the contract's own models. Null when absent or unreadable (the created tier
 * applies). A price naming other tiers reads the exact one (resolutionFromSR).
 */
export function videoTierFromSR(sr: unknown): '720p' | '1080p' | null {
  const n = srNumber(sr);
  if (n === null) return null;
  return n >= 1080 ? '1080p' : '720p';
}

function srNumber(sr: unknown): number | null {
  const n = typeof sr === 'number' ? sr : typeof sr === 'string' ? Number.parseInt(sr, 10) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** The resolution tier of a reported short side (480, 720, 1080, 1440, 2160): the highest tier it reaches. */
export function resolutionFromSR(sr: unknown): VideoTier | null {
  const n = srNumber(sr);
  if (n === null) return null;
  const at: Record<VideoTier, number> = { '480p': 0, '720p': 720, '1080p': 1080, '2k': 1440, '4k': 2160 };
  return [...VIDEO_RESOLUTIONS].reverse().find((t) => n >= at[t]) ?? '480p';
}

type Seconds = { outputSeconds: number; inputSeconds: number };

/**
 * Seconds to bill. Output basis: output duration (else the total). Input+output basis: in + out when both are
 * reported, else the total (already their sum for edit models) — an input reported longer than that sum counts as
 * the sum: the provider's total is billed, never a negative output that cannot be priced. Null when nothing billable
 * was reported (0 seconds included): the task is charged its estimate, never 0.
 */
export function billedSeconds(p: ReportedUsage, basis: 'output' | 'input+output'): Seconds | null {
  const s = reportedSeconds(p, basis);
  return s !== null && s.outputSeconds + s.inputSeconds > 0 ? s : null;
}

function reportedSeconds(p: ReportedUsage, basis: 'output' | 'input+output'): Seconds | null {
  const out = p.outputSeconds ?? null;
  const inp = p.inputSeconds ?? null;
  const total = p.totalSeconds ?? null;
  if (basis === 'output') {
    const o = out ?? total;
    return o === null ? null : { outputSeconds: o, inputSeconds: 0 };
  }
  if (out !== null && inp !== null && inp + out > 0) return { outputSeconds: out, inputSeconds: inp };
  if (total !== null) {
    const input = Math.min(inp ?? 0, total);
    return { outputSeconds: total - input, inputSeconds: input };
  }
  if (out !== null) return { outputSeconds: out, inputSeconds: inp ?? 0 };
  return null;
}

/** The reported sound, voice and upstream deduction over the estimate's (what the request asked for). */
function reportedExtras(estimate: VideoUsage, r: ReportedUsage): VideoExtras {
  const x: VideoExtras = {};
  const sound = r.sound ?? estimate.sound;
  if (sound) x.sound = true;
  if (estimate.voice) x.voice = true;
  if (estimate.shots !== undefined) x.shots = r.shots ?? estimate.shots;
  if (estimate.kind === 'video-mode' && estimate.resolution) x.resolution = estimate.resolution;
  if (r.upstreamUnits !== undefined && r.upstreamUnits !== null) x.upstreamUnits = r.upstreamUnits;
  return x;
}

/**
 * What a finished task is charged, from what its upstream reported: the reported seconds on the model's price basis
 * (`input+output` for edit models; input seconds too where the price bills them) at the reported resolution, else the
 * tier the task was created (and held) at; a family A task its reported seconds at its mode. Sound, voice and shots
 * as asked, unless reported. The task's estimate (its `usage` until success) when nothing billable was reported —
 * with the upstream's deduction when it gave one; null only for a task without an estimate.
 */
export function finishedTaskUsage(
  catalogue: Catalogue,
  task: Pick<TaskRecord, 'billingModel' | 'tier' | 'usage'>,
  reported: ReportedUsage | undefined,
): Usage | null {
  const estimate = task.usage;
  if (!reported || !estimate || (estimate.kind !== 'video' && estimate.kind !== 'video-mode')) return estimate;
  const entry = catalogue.get(task.billingModel);
  const units = reported.upstreamUnits ?? null;
  const unreported = (): Usage => (units === null ? estimate : { ...estimate, upstreamUnits: units });
  if (estimate.kind === 'video') {
    const price = entry ? asVideoPrice(entry.price) : null;
    const basis = price?.basis === 'input+output' || (price?.inputPerSecond ?? 0) > 0 ? 'input+output' : 'output';
    const secs = billedSeconds(reported, basis);
    if (!secs) return unreported();
    const created = VIDEO_RESOLUTIONS.includes(task.tier as VideoTier) ? (task.tier as VideoTier) : '1080p';
    return {
      kind: 'video',
      ...secs,
      tier: resolutionFromSR(reported.resolution) ?? created,
      ...reportedExtras(estimate, reported),
    };
  }
  const seconds = reported.outputSeconds ?? null;
  if (seconds === null || !(seconds > 0)) return unreported();
  const tier: ModeTier = task.tier === 'pro' ? 'pro' : 'std';
  const input = reported.inputSeconds ?? estimate.inputSeconds;
  return {
    kind: 'video-mode',
    outputSeconds: seconds,
    tier,
    ...(input !== undefined && input !== null ? { inputSeconds: input } : {}),
    ...reportedExtras(estimate, reported),
  };
}
