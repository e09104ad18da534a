// Operator console sessions: one row per sign-in, looked up by the SHA-256 of the cookie's secret.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface ConsoleSession {
  id: string;
  csrf: string;
  client: string | null;
  createdAt: number;
  expiresAt: number;
  /** The staff person signed in; null: the bootstrap admin key. */
  personId: string | null;
  /** The personal key the session was opened with; null: the bootstrap key, or a sign-in without a key. */
  keyId: string | null;
}

export class ConsoleSessionsRepo {
  constructor(private readonly db: Kysely<Database>) {}

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
    const r = await this.db
      .selectFrom('console_sessions')
      .select(['id', 'csrf', 'client', 'created_at', 'expires_at', 'person_id', 'key_id'])
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!r) return null;
    return {
      id: r.id,
      csrf: r.csrf,
      client: r.client,
      createdAt: Number(r.created_at),
      expiresAt: Number(r.expires_at),
      personId: r.person_id,
      keyId: r.key_id,
    };
  }

  /** Revoke by the secret's hash; true when a live session was revoked. */
  async revoke(secretHash: string, now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('console_sessions')
      .set({ revoked_at: now })
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Forget sessions that ended (expired or revoked) before `before`. */
  async purge(before: number): Promise<number> {
    const r = await this.db
      .deleteFrom('console_sessions')
      .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
