// What credit needs: the admin operations' deps (a credit goes through their one top-up path, core/admin/holders.ts)
// and the credit tables.
import type { CreditCodesRepo } from '../../store/repos/credit-codes.ts';
import type { PaymentEventsRepo } from '../../store/repos/payment-events.ts';
import type { AdminDeps } from '../admin/deps.ts';

export interface CreditDeps extends AdminDeps {
  readonly repos: AdminDeps['repos'] & { readonly creditCodes: CreditCodesRepo; readonly payments: PaymentEventsRepo };
}
