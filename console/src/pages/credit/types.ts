// The credit answers of the admin API (GET /admin/credit/…) as the Credit page reads them.

export interface Batch {
  id: string;
  name: string | null;
  amount: number;
  count: number;
  redeemed: number;
  expires_at: number;
  revoked_at: number | null;
  state: 'active' | 'expired' | 'revoked';
  created_by: string;
  created_at: number;
}

export interface Code {
  id: string;
  hint: string;
  state: 'unused' | 'redeemed' | 'expired' | 'revoked';
  redeemed_at: number | null;
  holder_kind: 'token' | 'account' | null;
  holder_id: string | null;
  token_id: string | null;
}

export interface Redemption {
  code_id: string;
  hint: string;
  batch_id: string;
  batch_name: string | null;
  amount: number;
  holder_kind: 'token' | 'account' | null;
  holder_id: string | null;
  token_id: string | null;
  redeemed_at: number;
}

export interface PaymentEvent {
  id: string;
  event_id: string | null;
  type: string | null;
  account_id: string | null;
  amount_total: number | null;
  currency: string | null;
  amount: number | null;
  outcome: string;
  detail: string | null;
  deliveries: number;
  created_at: number;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string;
}

/** The pill class of a state or outcome: green when it worked, red when it was refused. */
export function pill(s: string): string {
  if (s === 'active' || s === 'credited' || s === 'unused') return 'pill active';
  if (s === 'revoked' || s === 'expired' || s === 'bad_signature' || s === 'unknown_account' || s === 'refused')
    return 'pill revoked';
  return 'pill';
}
