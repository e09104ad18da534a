// TOLLWAY_STRIPE_*: the Stripe webhook that credits a Payment Link's payments (core/credit/stripe.ts,
// docs/operations.md#payment-links).
import { ConfigError, type Env } from './env-vars.ts';

export interface StripeConfig {
  /** The endpoint's signing secret (whsec_…): a delivery whose Stripe-Signature does not verify with it is refused. */
  webhookSecret: string;
  /** Micro-units credited per minor unit (cent) of each currency, by its lower-case ISO code. */
  rates: ReadonlyMap<string, number>;
}

const MICRO = 1_000_000;

/** `usd=0.01,eur=0.011`: the units one minor unit of each currency buys, as exact micro-units. */
export function parseRates(raw: string, name = 'TOLLWAY_STRIPE_CREDIT_RATES'): Map<string, number> {
  const rates = new Map<string, number>();
  for (const part of raw.split(',')) {
    const m = /^\s*([A-Za-z]{3})\s*=\s*(\d{1,9})(?:\.(\d{1,6}))?\s*$/.exec(part);
    if (!m)
      throw new ConfigError(
        `${name} must be currency=units per minor unit, comma-separated (e.g. usd=0.01), got "${part.trim()}"`,
      );
    const micro = Number(m[2]) * MICRO + Number((m[3] ?? '').padEnd(6, '0'));
    if (micro <= 0) throw new ConfigError(`${name}: the rate of ${m[1]} must be more than 0`);
    rates.set(m[1]!.toLowerCase(), micro);
  }
  return rates;
}

/** Null when no webhook secret is set: POST /webhooks/stripe then answers 404. */
export function stripeConfig(env: Env): StripeConfig | null {
  const secret = env.TOLLWAY_STRIPE_WEBHOOK_SECRET?.trim();
  if (!secret) return null;
  if (!secret.startsWith('whsec_'))
    throw new ConfigError("TOLLWAY_STRIPE_WEBHOOK_SECRET must be the endpoint's signing secret (whsec_…)");
  const rates = env.TOLLWAY_STRIPE_CREDIT_RATES?.trim();
  if (!rates)
    throw new ConfigError(
      'TOLLWAY_STRIPE_WEBHOOK_SECRET is set but TOLLWAY_STRIPE_CREDIT_RATES is not: say what a payment credits (e.g. usd=0.01: a cent buys 0.01 units)',
    );
  return { webhookSecret: secret, rates: parseRates(rates) };
}
