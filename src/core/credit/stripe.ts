// POST /webhooks/stripe's work: a Stripe event whose signature verifies (the `stripe` package, with the endpoint's
// secret) and that says a Checkout Session was paid credits the account its `client_reference_id` names, by
// `amount_total` (minor units) times the currency's configured rate. The credit's ledger key names the event id, so
// each event credits once whatever Stripe's retries; every delivery is recorded with its outcome (the console's
// payment events) and a refused or unverified one is logged.
import Stripe from 'stripe';
import type { Logger } from 'pino';
import { newId } from '../../auth/token-secret.ts';
import type { StripeConfig } from '../../config/payment-env.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { isObject } from '../../json/json.ts';
import type { PaymentEventInput } from '../../store/repos/payment-events.ts';
import { audit, type Actor } from '../admin/deps.ts';
import { creditHolder } from './credit-holder.ts';
import type { CreditDeps } from './deps.ts';

export interface StripeDeps extends CreditDeps {
  readonly config: { readonly stripe: StripeConfig | null };
  readonly logger: Pick<Logger, 'info' | 'warn'>;
}

/** What a delivery came to; `credited` is kept on its event's row whatever later deliveries bring. */
export type PaymentOutcome =
  | 'credited'
  | 'repeated'
  | 'unknown_account'
  | 'unknown_currency'
  | 'awaiting_payment'
  | 'refused'
  | 'ignored'
  | 'bad_signature';

export interface StripeAnswer {
  received: true;
  event_id: string;
  outcome: PaymentOutcome;
}

/** The Checkout Session events that mean money arrived (an async payment method's arrives with the second). */
const PAID_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

const MAX_EVENT_ID = 100;

type Fields = Record<string, unknown>;
const str = (o: Fields, k: string): string | null => (typeof o[k] === 'string' ? (o[k] as string) : null);
const int = (o: Fields, k: string): number | null => (Number.isSafeInteger(o[k]) ? (o[k] as number) : null);

/** The event, when the signature verifies with the endpoint's secret (and is recent: Stripe's default tolerance). */
function verify(cfg: StripeConfig, payload: string | Buffer, signature: string | undefined): Stripe.Event | string {
  if (!signature) return 'no Stripe-Signature header';
  try {
    return Stripe.webhooks.constructEvent(payload, signature, cfg.webhookSecret);
  } catch (e) {
    return e instanceof Error ? e.message.slice(0, 300) : 'signature check failed';
  }
}

export async function receiveStripe(
  deps: StripeDeps,
  payload: string | Buffer,
  signature: string | undefined,
  requestId?: string,
): Promise<StripeAnswer> {
  const cfg = deps.config.stripe;
  if (!cfg)
    throw new GatewayError(
      'not_found',
      'Stripe webhooks are off: set TOLLWAY_STRIPE_WEBHOOK_SECRET (docs/operations.md)',
    );
  const event = verify(cfg, payload, signature);
  const base = { provider: 'stripe', type: null, accountId: null, amountMinor: null, currency: null, amount: null };
  if (typeof event === 'string') {
    deps.logger.warn({ request_id: requestId, reason: event }, 'Stripe webhook refused: its signature did not verify');
    await deps.repos.payments.record({
      ...base,
      id: newId('pay'),
      eventId: null,
      outcome: 'bad_signature',
      detail: event,
    });
    throw new GatewayError('invalid_request', `Stripe signature verification failed: ${event}`);
  }
  if (event.id.length > MAX_EVENT_ID) throw new GatewayError('invalid_request', 'Stripe event id too long');
  if (!PAID_EVENTS.has(event.type)) return { received: true, event_id: event.id, outcome: 'ignored' };
  const object: unknown = event.data?.object;
  const session: Fields = isObject(object) ? object : {};
  const seen: PaymentEventInput = {
    ...base,
    id: newId('pay'),
    eventId: event.id,
    type: event.type,
    accountId: str(session, 'client_reference_id')?.slice(0, 255) ?? null,
    amountMinor: int(session, 'amount_total'),
    currency: str(session, 'currency')?.toLowerCase().slice(0, 16) ?? null,
    outcome: 'ignored',
    detail: null,
  };
  const r = await settle(deps, cfg, event, session, seen, requestId);
  // A repeat is recorded as the credit it repeats: the ledger holds that credit.
  await deps.repos.payments.record({ ...seen, ...r, outcome: r.outcome === 'repeated' ? 'credited' : r.outcome });
  const log = { request_id: requestId, event_id: event.id, account_id: seen.accountId, outcome: r.outcome };
  if (r.outcome === 'credited' || r.outcome === 'repeated') deps.logger.info(log, 'Stripe payment credited');
  else deps.logger.warn({ ...log, detail: r.detail }, 'Stripe payment event credited nothing');
  return { received: true, event_id: event.id, outcome: r.outcome };
}

/** What a paid-session event comes to: the credit, or why none. */
async function settle(
  deps: StripeDeps,
  cfg: StripeConfig,
  event: Stripe.Event,
  session: Fields,
  seen: PaymentEventInput,
  requestId: string | undefined,
): Promise<{ outcome: PaymentOutcome; detail: string | null; amount: number | null }> {
  const none = (outcome: PaymentOutcome, detail: string, amount: number | null = null) => ({ outcome, detail, amount });
  const status = str(session, 'payment_status');
  if (event.type === 'checkout.session.completed' && status !== 'paid')
    return none(status === 'unpaid' ? 'awaiting_payment' : 'ignored', `payment_status ${status ?? 'missing'}`);
  const accountId = seen.accountId;
  if (!accountId) return none('unknown_account', 'the session has no client_reference_id');
  if (!(await deps.repos.accounts.get(accountId))) return none('unknown_account', `no account ${accountId}`);
  const rate = seen.currency ? cfg.rates.get(seen.currency) : undefined;
  if (rate === undefined)
    return none('unknown_currency', `no rate for currency ${seen.currency ?? '(none)'} in TOLLWAY_STRIPE_CREDIT_RATES`);
  const minor = seen.amountMinor;
  if (minor === null || minor <= 0) return none('ignored', 'amount_total is not a positive amount');
  const amount = minor * rate;
  if (!Number.isSafeInteger(amount)) return none('refused', 'the amount is larger than a quota may hold');
  const by: Actor = { actor: 'stripe', ...(requestId ? { requestId } : {}) };
  try {
    const { credited } = await creditHolder(deps, by, { kind: 'account', id: accountId }, amount, `stripe:${event.id}`);
    if (credited)
      await audit(deps, by, 'credit.payment', accountId, {
        event_id: event.id,
        amount_total: minor,
        currency: seen.currency,
        amount,
      });
    return { outcome: credited ? 'credited' : 'repeated', detail: null, amount };
  } catch (e) {
    // The top-up's refusals (the account revoked, or unlimited): recorded for the operator, not retried by Stripe.
    if (e instanceof GatewayError) return none('refused', e.message.slice(0, 500), amount);
    throw e;
  }
}
