// The tables of the customer portal: account members, their keys and portal sessions (migration 080).

export interface AccountMembersTable {
  id: string;
  account_id: string;
  name: string;
  /** Lower-cased; unique within the account. */
  email: string;
  revoked_at: number | null;
  created_at: number;
}

export interface MemberKeysTable {
  id: string;
  member_id: string;
  /** The key's first characters, to recognise it. */
  prefix: string;
  /** SHA-256 of the key: the key itself is shown once and never stored. */
  secret_hash: string;
  expires_at: number;
  revoked_at: number | null;
  created_at: number;
}

export interface PortalSessionsTable {
  id: string;
  secret_hash: string;
  csrf: string;
  member_id: string;
  /** The member key that opened it; null: a sign-in by an identity provider. */
  key_id: string | null;
  client: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}
