// Validation of operator-supplied prices (admin API and catalogue file). Every amount is an integer
// number of micro-units ≥ 0; a price must keep the unit of the model it replaces (the capability code
// meters by kind, so a video model cannot suddenly be priced per token).
import type { Price, TokenPriceTier } from '../catalogue/types.ts';
import { isObject } from '../json/json.ts';
import { isVideoPrice } from './video-price.ts';
import { micro, noExtraKeys, PriceValidationError } from './price-fields.ts';

export { MAX_UNIT_PRICE, PriceValidationError } from './price-fields.ts';
import { checkVideoTiers, validateVideoPrice } from './video-price-validation.ts';

/**
 * Any video price may take the one video shape (VideoPrice); a VideoPrice may go back to the legacy shape whose tiers
 * it names (modes: video-mode-second; resolutions: video-second). Other units stay as they are.
 */
function videoShapeFits(current: Price, unit: unknown): boolean {
  if (!isVideoPrice(current)) return false;
  if (unit === 'video') return true;
  if (current.unit !== 'video') return false;
  const keys = Object.keys(current.perSecond);
  if (unit === 'video-mode-second') return keys.some((k) => k === 'std' || k === 'pro' || k.includes('/'));
  return unit === 'video-second' && keys.some((k) => !(k === 'std' || k === 'pro' || k.includes('/')));
}

/** How a video price's tasks are priced: by mode (family A) or by resolution (/v1); null for other units. */
function tiersOf(p: Price): 'mode' | 'resolution' | null {
  if (p.unit === 'video-mode-second') return 'mode';
  if (p.unit === 'video-second') return 'resolution';
  if (p.unit !== 'video') return null;
  return Object.keys(p.perSecond).some((k) => k === 'std' || k === 'pro') ? 'mode' : 'resolution';
}

function tier(v: unknown, path: string): TokenPriceTier {
  if (!isObject(v)) throw new PriceValidationError(`${path} must be an object`, path);
  noExtraKeys(v, ['maxInputTokens', 'inputPer1k', 'outputPer1k', 'cachedInputPer1k', 'cacheCreationPer1k'], path);
  const max = v.maxInputTokens;
  if (max !== null && (typeof max !== 'number' || !Number.isInteger(max) || max <= 0)) {
    throw new PriceValidationError(
      `${path}.maxInputTokens must be a positive integer or null (no bound)`,
      `${path}.maxInputTokens`,
    );
  }
  const t: TokenPriceTier = {
    maxInputTokens: max,
    inputPer1k: micro(v, 'inputPer1k', path)!,
    outputPer1k: micro(v, 'outputPer1k', path)!,
  };
  const cached = micro(v, 'cachedInputPer1k', path, false);
  const creation = micro(v, 'cacheCreationPer1k', path, false);
  if (cached !== undefined) t.cachedInputPer1k = cached;
  if (creation !== undefined) t.cacheCreationPer1k = creation;
  return t;
}

/**
 * Validate a price. `current` is the model's present price (if any): its unit must be kept, and a
 * video-second price may omit `basis` (the current basis is kept).
 */
export function validatePrice(v: unknown, current?: Price, path = 'price'): Price {
  if (!isObject(v)) throw new PriceValidationError(`${path} must be an object with a "unit"`, path);
  const unit = v.unit;
  if (current && unit !== current.unit && !videoShapeFits(current, unit)) {
    throw new PriceValidationError(
      `${path}.unit must stay "${current.unit}" for this model, got ${JSON.stringify(unit) ?? 'nothing'}`,
      `${path}.unit`,
    );
  }
  switch (unit) {
    case 'tokens': {
      noExtraKeys(v, ['unit', 'tiers'], path);
      if (!Array.isArray(v.tiers) || v.tiers.length === 0)
        throw new PriceValidationError(`${path}.tiers must be a non-empty array`, `${path}.tiers`);
      const tiers = v.tiers.map((t, i) => tier(t, `${path}.tiers[${i}]`));
      let prev = 0;
      tiers.forEach((t, i) => {
        if (t.maxInputTokens === null) {
          if (i !== tiers.length - 1)
            throw new PriceValidationError(
              `${path}.tiers[${i}].maxInputTokens may be null only in the last tier`,
              `${path}.tiers[${i}].maxInputTokens`,
            );
        } else {
          if (t.maxInputTokens <= prev)
            throw new PriceValidationError(
              `${path}.tiers[${i}].maxInputTokens must be greater than the previous tier's bound`,
              `${path}.tiers[${i}].maxInputTokens`,
            );
          prev = t.maxInputTokens;
        }
      });
      return { unit, tiers };
    }
    case 'image':
      noExtraKeys(v, ['unit', 'perImage'], path);
      return { unit, perImage: micro(v, 'perImage', path)! };
    case 'video-second': {
      noExtraKeys(v, ['unit', 'perSecond', 'basis'], path);
      if (!isObject(v.perSecond))
        throw new PriceValidationError(`${path}.perSecond must be an object {"720p", "1080p"}`, `${path}.perSecond`);
      noExtraKeys(v.perSecond, ['720p', '1080p'], `${path}.perSecond`);
      const basis = v.basis ?? (current?.unit === 'video-second' ? current.basis : undefined);
      if (basis !== 'output' && basis !== 'input+output')
        throw new PriceValidationError(`${path}.basis must be "output" or "input+output"`, `${path}.basis`);
      return {
        unit,
        perSecond: {
          '720p': micro(v.perSecond, '720p', `${path}.perSecond`)!,
          '1080p': micro(v.perSecond, '1080p', `${path}.perSecond`)!,
        },
        basis,
      };
    }
    case 'video-mode-second':
      noExtraKeys(v, ['unit', 'perSecond'], path);
      if (!isObject(v.perSecond))
        throw new PriceValidationError(`${path}.perSecond must be an object {"std", "pro"}`, `${path}.perSecond`);
      noExtraKeys(v.perSecond, ['std', 'pro'], `${path}.perSecond`);
      return {
        unit,
        perSecond: {
          std: micro(v.perSecond, 'std', `${path}.perSecond`)!,
          pro: micro(v.perSecond, 'pro', `${path}.perSecond`)!,
        },
      };
    case 'video': {
      const out = validateVideoPrice(v, path);
      const by = current ? tiersOf(current) : null;
      if (by) checkVideoTiers(out, by, path);
      return out;
    }
    default:
      throw new PriceValidationError(
        `${path}.unit must be one of tokens, image, video, video-second, video-mode-second`,
        `${path}.unit`,
      );
  }
}
