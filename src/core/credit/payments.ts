// The payment events as the console lists them: each Stripe delivery's event, account, amount and outcome.
import { decodeCursor } from '../../contracts/cursor.ts';
import type { PaymentEventRecord } from '../../store/repos/payment-events.ts';
import type { Page } from '../admin/lists.ts';
import { pageFrom } from './batches.ts';
import type { CreditDeps } from './deps.ts';

export interface PaymentEventView {
  object: 'payment.event';
  id: string;
  provider: string;
  event_id: string | null;
  type: string | null;
  account_id: string | null;
  amount_total: number | null;
  currency: string | null;
  /** Micro-units credited (or that would have been). */
  amount: number | null;
  outcome: string;
  detail: string | null;
  deliveries: number;
  created_at: number;
  updated_at: number;
}

export const publicPaymentEvent = (e: PaymentEventRecord): PaymentEventView => ({
  object: 'payment.event',
  id: e.id,
  provider: e.provider,
  event_id: e.eventId,
  type: e.type,
  account_id: e.accountId,
  amount_total: e.amountMinor,
  currency: e.currency,
  amount: e.amount,
  outcome: e.outcome,
  detail: e.detail,
  deliveries: e.deliveries,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

export async function paymentPage(deps: CreditDeps, limit: number, cursor?: string): Promise<Page<PaymentEventView>> {
  const after =
    cursor === undefined
      ? undefined
      : (([at, id]) => ({ at: at as number, id: id as string }))(decodeCursor(cursor, ['n', 's']));
  const rows = await deps.repos.payments.list(limit + 1, after);
  return pageFrom(rows, limit, (e) => [e.createdAt, e.id], publicPaymentEvent);
}
