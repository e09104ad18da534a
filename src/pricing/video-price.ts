// The one video price rule: a video usage (the estimate from the request, or what the upstream reported at the end)
// × a video price → the charge. The hold and the charge of every video task go through priceVideo, so an estimate
// and a charge of the same quantities are the same amount. The two shapes of before VideoPrice are read as one.
import type { LegacyVideoPrice, Price, VideoPrice } from '../vocabulary/price.ts';
import type { ModeTier, VideoTier, VideoUsage } from '../vocabulary/usage.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Charge } from '../metering/types.ts';

export const VIDEO_RESOLUTIONS: readonly VideoTier[] = ['480p', '720p', '1080p', '2k', '4k'];
export const VIDEO_MODES: readonly ModeTier[] = ['std', 'pro'];

export const isVideoPrice = (p: Price): p is VideoPrice | LegacyVideoPrice =>
  p.unit === 'video' || p.unit === 'video-second' || p.unit === 'video-mode-second';

/** A video price of any shape read as a VideoPrice (a legacy shape's meaning is kept exactly). */
export function asVideoPrice(p: Price): VideoPrice | null {
  switch (p.unit) {
    case 'video':
      return p;
    case 'video-second':
      return { unit: 'video', perSecond: p.perSecond, basis: p.basis };
    case 'video-mode-second':
      return { unit: 'video', perSecond: p.perSecond };
    default:
      return null;
  }
}

/** The usage's mode and resolution: a `video` usage's tier is a resolution, a `video-mode` usage's its mode. */
export interface VideoDefaults {
  defaultResolution?: VideoTier;
  defaultMode?: ModeTier;
}

function tiersOf(u: VideoUsage, d: VideoDefaults): { mode: ModeTier | null; resolution: VideoTier | null } {
  if (u.kind === 'video') return { mode: null, resolution: u.tier ?? u.resolution ?? d.defaultResolution ?? null };
  return { mode: u.tier ?? d.defaultMode ?? 'std', resolution: u.resolution ?? null };
}

/** The nearest resolution the price names: the first above `r`, else the highest below it. */
function nearestResolution(p: VideoPrice, r: VideoTier): VideoTier | null {
  const at = VIDEO_RESOLUTIONS.indexOf(r);
  const named = VIDEO_RESOLUTIONS.filter((x) => p.perSecond[x] !== undefined);
  return named.find((x) => VIDEO_RESOLUTIONS.indexOf(x) >= at) ?? named[named.length - 1] ?? null;
}

/** The tier key a usage is priced at (VideoPrice's lookup order), or null when the price names none that fits. */
export function videoTierKey(p: VideoPrice, mode: ModeTier | null, resolution: VideoTier | null): string | null {
  const has = (k: string) => p.perSecond[k] !== undefined;
  if (mode && resolution && has(`${mode}/${resolution}`)) return `${mode}/${resolution}`;
  if (resolution && has(resolution)) return resolution;
  if (mode && has(mode)) return mode;
  return resolution ? nearestResolution(p, resolution) : null;
}

/** Seconds as integer milliseconds (providers report floats such as 6.62). */
const ms = (seconds: number) => Math.round(seconds * 1000);

function count(v: number | undefined, name: string, integer = false): number {
  const n = v ?? 0;
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)))
    throw new GatewayError('internal_error', `metering: ${name} must be a non-negative number, got ${String(v)}`);
  return n;
}

/** The charge of a video usage at a video price: ceil(Σ milliseconds × rate / 1000) + shots × perShot + perRun. */
export function priceVideo(price: VideoPrice, u: VideoUsage, d: VideoDefaults = {}): Charge {
  const { mode, resolution } = tiersOf(u, d);
  const tier = videoTierKey(price, mode, resolution);
  if (tier === null)
    throw new GatewayError(
      'internal_error',
      `metering: the video price names no tier for ${mode ?? resolution ?? '-'}`,
    );
  const rate = price.perSecond[tier]!;
  const outMs = ms(count(u.outputSeconds, 'outputSeconds'));
  const inMs = ms(count(u.inputSeconds, 'inputSeconds'));
  const tierInMs = price.basis === 'input+output' ? inMs : 0;
  const sound = u.sound ? (price.soundPerSecond ?? 0) : 0;
  const voice = u.voice ? (price.voicePerSecond ?? 0) : 0;
  const shots = count(u.shots, 'shots', true);
  const perMs =
    BigInt(outMs + tierInMs) * BigInt(rate) +
    BigInt(outMs) * BigInt(sound + voice) +
    BigInt(inMs) * BigInt(price.inputPerSecond ?? 0);
  const fixed = BigInt(shots) * BigInt(price.perShot ?? 0) + BigInt(price.perRun ?? 0);
  const amount = Number((perMs + 999n) / 1000n + fixed);
  const quantities: Record<string, unknown> = {
    output_seconds: outMs / 1000,
    ...(u.kind === 'video' || inMs > 0
      ? { input_seconds: tierInMs > 0 || price.inputPerSecond ? inMs / 1000 : 0 }
      : {}),
    billed_seconds: (outMs + tierInMs) / 1000,
    tier,
    ...(price.basis ? { basis: price.basis } : {}),
  };
  if (resolution && resolution !== tier) quantities.resolution = resolution;
  if (u.sound) quantities.sound = true;
  if (u.voice) quantities.voice = true;
  if (shots > 0) quantities.shots = shots;
  if (u.upstreamUnits !== undefined) quantities.upstream_units = u.upstreamUnits;
  const unitPrices: Record<string, unknown> = { per_second: rate };
  if (price.soundPerSecond) unitPrices.sound_per_second = price.soundPerSecond;
  if (price.voicePerSecond) unitPrices.voice_per_second = price.voicePerSecond;
  if (price.inputPerSecond) unitPrices.input_per_second = price.inputPerSecond;
  if (price.perShot) unitPrices.per_shot = price.perShot;
  if (price.perRun) unitPrices.per_run = price.perRun;
  return { amount, quantities, unitPrices };
}

/** A ledger line's own unit prices (and its tier and basis) as a price: what reconcile re-prices its usage at. */
export function videoPriceOfLine(unit: Record<string, unknown>, q: Record<string, unknown>): VideoPrice {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const p: VideoPrice = { unit: 'video', perSecond: { [String(q.tier ?? '')]: n(unit.per_second) } };
  if (q.basis === 'input+output' || q.basis === 'output') p.basis = q.basis;
  if (unit.sound_per_second) p.soundPerSecond = n(unit.sound_per_second);
  if (unit.voice_per_second) p.voicePerSecond = n(unit.voice_per_second);
  if (unit.input_per_second) p.inputPerSecond = n(unit.input_per_second);
  if (unit.per_shot) p.perShot = n(unit.per_shot);
  if (unit.per_run) p.perRun = n(unit.per_run);
  return p;
}
