// Portal sessions: one row per member sign-in (session-rows.ts), looked up by the SHA-256 of the cookie's secret.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { SessionRows, type SessionTimes, sessionTimes } from './session-rows.ts';

export interface PortalSession extends SessionTimes {
  id: string;
  csrf: string;
  memberId: string;
  /** The member key it was opened with; null: a sign-in by an identity provider. */
  keyId: string | null;
}

export class PortalSessionsRepo extends SessionRows<'portal_sessions'> {
  constructor(db: Kysely<Database>) {
    super(db, 'portal_sessions');
  }

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
    const r = await this.liveRow(secretHash, now);
    if (!r) return null;
    return { id: r.id, csrf: r.csrf, memberId: r.member_id, keyId: r.key_id, ...sessionTimes(r) };
  }

  /** The session goes on with another key of its member (the member rotated the one it was opened with). */
  async rekey(id: string, keyId: string): Promise<void> {
    await this.db.updateTable('portal_sessions').set({ key_id: keyId }).where('id', '=', id).execute();
  }
}
