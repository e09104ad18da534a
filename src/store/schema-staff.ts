// The tables of who did what: staff people and their personal admin keys (migration 060), console sessions and the
// audit log.
import type { Generated } from 'kysely';

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

/** Operator console sign-ins (migration 009): the cookie's secret only as its SHA-256. */
export interface ConsoleSessionsTable {
  id: string; // public id, named in audit lines
  secret_hash: string;
  csrf: string;
  client: string | null; // the address that signed in
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** The person signed in (migration 060); null: the bootstrap admin key. */
  person_id: string | null;
  /** The personal key the session was opened with; null: the bootstrap key or single sign-on. */
  key_id: string | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null; // JSON
  request_id: string | null;
  /** The staff person behind the change (migration 060); null: the bootstrap admin key, the CLI or the gateway. */
  person_id: string | null;
  /** The key used: a personal key's id, `admin-key` (the bootstrap key); null: none (the CLI, a sign-on session). */
  key_id: string | null;
}
