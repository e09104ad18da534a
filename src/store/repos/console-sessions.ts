// Operator console sessions: one row per sign-in (session-rows.ts), standing for a staff person or the bootstrap key.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { SessionRows, type SessionTimes, sessionTimes } from './session-rows.ts';

export interface ConsoleSession extends SessionTimes {
  id: string;
  csrf: string;
  /** The staff person signed in; null: the bootstrap admin key. */
  personId: string | null;
  /** The personal key the session was opened with; null: the bootstrap key, or a sign-in without a key. */
  keyId: string | null;
}

export class ConsoleSessionsRepo extends SessionRows<'console_sessions'> {
  constructor(db: Kysely<Database>) {
    super(db, 'console_sessions');
  }

  async create(s: ConsoleSession & { secretHash: string }): Promise<void> {
    await this.db
      .insertInto('console_sessions')
      .values({
        id: s.id,
        secret_hash: s.secretHash,
        csrf: s.csrf,
        client: s.client,
        created_at: s.createdAt,
        expires_at: s.expiresAt,
        revoked_at: null,
        person_id: s.personId,
        key_id: s.keyId,
      })
      .execute();
  }

  /** The live session whose secret hashes to `secretHash`, or null (unknown, expired or revoked). */
  async findLive(secretHash: string, now = Date.now()): Promise<ConsoleSession | null> {
    const r = await this.liveRow(secretHash, now);
    if (!r) return null;
    return { id: r.id, csrf: r.csrf, ...sessionTimes(r), personId: r.person_id, keyId: r.key_id };
  }
}
