// The gateway's answers the console shows, as the server declares them (src/core/views.ts, type-only): a field the
// server renames or drops fails `npm run typecheck` here instead of showing as a blank cell.
export type {
  AdminTaskDetail,
  AdminTaskEventView as TaskEvent,
  AdminTaskView as Task,
  BillAccountLine,
  BillByAccountView,
  BillByModelView,
  BillLine,
  BillModelLine,
  BillPeriod,
  BillTotal,
  BillView,
  CreatedTokenView as CreatedToken,
  TokenUsageView,
  TokenView as Token,
  TopUpView,
  LedgerLineView,
} from '../../src/core/views.ts';
export type { AccountView as Account } from '../../src/core/admin/accounts.ts';
export type { AccountUsageView as AccountUsage } from '../../src/core/admin/account-usage.ts';
export type { BudgetStatus } from '../../src/core/admin/budgets.ts';
export type { Access, Area, Role } from '../../src/core/staff/roles.ts';
export type {
  CreatedKeyView as CreatedStaffKey,
  KeyView as StaffKey,
  PersonView as Person,
} from '../../src/core/staff/people.ts';
