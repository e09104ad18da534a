// The field rules every operator-supplied price shares (price-validation.ts, video-price-validation.ts): an amount is
// an integer number of micro-units in range, and a price object names no field it does not know.
import { GatewayError } from '../errors/gateway-error.ts';

/** The highest unit price an operator may set: 1,000,000 units (per 1k tokens, image or second). */
export const MAX_UNIT_PRICE = 1_000_000_000_000;

export class PriceValidationError extends GatewayError {
  constructor(message: string, param: string) {
    super('invalid_parameter', message, { param });
  }
}

export function noExtraKeys(o: Record<string, unknown>, allowed: string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k))
      throw new PriceValidationError(
        `${path}.${k} is not a known price field (allowed: ${allowed.join(', ')})`,
        `${path}.${k}`,
      );
  }
}

export function micro(o: Record<string, unknown>, key: string, path: string, required = true): number | undefined {
  const v = o[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_UNIT_PRICE) {
    throw new PriceValidationError(
      `${path}.${key} must be an integer number of micro-units from 0 to ${MAX_UNIT_PRICE} (1 unit = 1,000,000), got ${JSON.stringify(v) ?? 'nothing'}`,
      `${path}.${key}`,
    );
  }
  return v;
}
