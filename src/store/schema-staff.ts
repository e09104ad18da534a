// The tables of staff people and their personal admin keys (migration 060).

export interface StaffPeopleTable {
  id: string;
  name: string;
  /** Lower-cased; unique. */
  email: string;
  role: string; // core/staff/roles.ts Role
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface StaffKeysTable {
  id: string;
  person_id: string;
  name: string | null;
  /** The key's first characters, to recognise it. */
  prefix: string;
  /** SHA-256 of the key: the key itself is shown once and never stored. */
  secret_hash: string;
  expires_at: number;
  revoked_at: number | null;
  created_at: number;
}
