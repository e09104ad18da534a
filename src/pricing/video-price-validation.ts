// Validation of the one video price shape (VideoPrice) from the admin API and the catalogue file: every amount an
// integer number of micro-units, every tier key a resolution, a mode or "<mode>/<resolution>".
import type { VideoPrice } from '../vocabulary/price.ts';
import { micro, noExtraKeys, PriceValidationError } from './price-fields.ts';
import { VIDEO_MODES, VIDEO_RESOLUTIONS } from './video-price.ts';

const KEYS = ['unit', 'perSecond', 'soundPerSecond', 'voicePerSecond', 'inputPerSecond', 'basis', 'perShot', 'perRun'];
const OPTIONAL = ['soundPerSecond', 'voicePerSecond', 'inputPerSecond', 'perShot', 'perRun'] as const;

function isTierKey(k: string): boolean {
  const [a, b] = k.split('/');
  if (b === undefined)
    return (VIDEO_RESOLUTIONS as readonly string[]).includes(a!) || (VIDEO_MODES as readonly string[]).includes(a!);
  return (VIDEO_MODES as readonly string[]).includes(a!) && (VIDEO_RESOLUTIONS as readonly string[]).includes(b);
}

export function validateVideoPrice(v: Record<string, unknown>, path: string): VideoPrice {
  noExtraKeys(v, KEYS, path);
  const ps = v.perSecond;
  if (typeof ps !== 'object' || ps === null || Array.isArray(ps) || Object.keys(ps).length === 0)
    throw new PriceValidationError(
      `${path}.perSecond must be a non-empty object of tiers (${VIDEO_RESOLUTIONS.join(', ')}, ${VIDEO_MODES.join(', ')} or "<mode>/<resolution>")`,
      `${path}.perSecond`,
    );
  const perSecond: Record<string, number> = {};
  for (const k of Object.keys(ps)) {
    if (!isTierKey(k))
      throw new PriceValidationError(
        `${path}.perSecond.${k} is not a tier (${VIDEO_RESOLUTIONS.join(', ')}, ${VIDEO_MODES.join(', ')} or "<mode>/<resolution>")`,
        `${path}.perSecond.${k}`,
      );
    perSecond[k] = micro(ps as Record<string, unknown>, k, `${path}.perSecond`)!;
  }
  const out: VideoPrice = { unit: 'video', perSecond };
  for (const k of OPTIONAL) {
    const n = micro(v, k, path, false);
    if (n !== undefined) out[k] = n;
  }
  if (v.basis !== undefined) {
    if (v.basis !== 'output' && v.basis !== 'input+output')
      throw new PriceValidationError(`${path}.basis must be "output" or "input+output"`, `${path}.basis`);
    out.basis = v.basis;
  }
  return out;
}

/**
 * A video price must price every task of its model: one priced by mode (family A) names both modes, one priced by
 * resolution (/v1) at least one resolution (the nearest named prices the others).
 */
export function checkVideoTiers(p: VideoPrice, by: 'mode' | 'resolution', path: string): void {
  const keys = Object.keys(p.perSecond);
  if (by === 'mode') {
    for (const m of VIDEO_MODES)
      if (!keys.includes(m))
        throw new PriceValidationError(
          `${path}.perSecond.${m} is required: the model's tasks are priced by mode`,
          `${path}.perSecond.${m}`,
        );
    return;
  }
  if (!keys.some((k) => (VIDEO_RESOLUTIONS as readonly string[]).includes(k)))
    throw new PriceValidationError(
      `${path}.perSecond must name a resolution (${VIDEO_RESOLUTIONS.join(', ')}): the model's tasks are priced by resolution`,
      `${path}.perSecond`,
    );
}
