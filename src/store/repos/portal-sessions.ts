// Portal sessions: one row per member sign-in, looked up by the SHA-256 of the cookie's secret.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface PortalSession {
  id: string;
  csrf: string;
  memberId: string;
  /** The member key it was opened with; null: a sign-in by an identity provider. */
  keyId: string | null;
  client: string | null;
  createdAt: number;
  expiresAt: number;
}

export class PortalSessionsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async create(s: PortalSession & { secretHash: string }): Promise<void> {
    await this.db
      .insertInto('portal_sessions')
      .values({
        id: s.id,
        secret_hash: s.secretHash,
        csrf: s.csrf,
        member_id: s.memberId,
        key_id: s.keyId,
        client: s.client,
        created_at: s.createdAt,
        expires_at: s.expiresAt,
        revoked_at: null,
      })
      .execute();
  }

  /** The live session whose secret hashes to `secretHash`, or null (unknown, expired or revoked). */
  async findLive(secretHash: string, now = Date.now()): Promise<PortalSession | null> {
    const r = await this.db
      .selectFrom('portal_sessions')
      .select(['id', 'csrf', 'member_id', 'key_id', 'client', 'created_at', 'expires_at'])
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!r) return null;
    return {
      id: r.id,
      csrf: r.csrf,
      memberId: r.member_id,
      keyId: r.key_id,
      client: r.client,
      createdAt: Number(r.created_at),
      expiresAt: Number(r.expires_at),
    };
  }

  async revoke(secretHash: string, now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('portal_sessions')
      .set({ revoked_at: now })
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The session goes on with another key of its member (the member rotated the one it was opened with). */
  async rekey(id: string, keyId: string): Promise<void> {
    await this.db.updateTable('portal_sessions').set({ key_id: keyId }).where('id', '=', id).execute();
  }

  /** Forget sessions that ended (expired or revoked) before `before`. */
  async purge(before: number): Promise<number> {
    const r = await this.db
      .deleteFrom('portal_sessions')
      .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
