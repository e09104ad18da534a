// What the console's and the portal's session tables share: a row per sign-in, found by the hash of the cookie's
// secret, revoked by it, forgotten a while after it ended. Each repo adds whom its sessions stand for.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../schema.ts';

type SessionTable = 'console_sessions' | 'portal_sessions';

/** The times every session has, as numbers (PostgreSQL's bigint arrives as a string). */
export interface SessionTimes {
  client: string | null;
  createdAt: number;
  expiresAt: number;
}

export function sessionTimes(r: { client: string | null; created_at: number; expires_at: number }): SessionTimes {
  return { client: r.client, createdAt: Number(r.created_at), expiresAt: Number(r.expires_at) };
}

export abstract class SessionRows<T extends SessionTable> {
  protected constructor(
    protected readonly db: Kysely<Database>,
    private readonly table: T,
  ) {}

  /** The live row whose secret hashes to `secretHash`; undefined when unknown, expired or revoked. */
  protected async liveRow(secretHash: string, now: number): Promise<Selectable<Database[T]> | undefined> {
    const r = await this.db
      .selectFrom(this.table as SessionTable)
      .selectAll()
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return r as Selectable<Database[T]> | undefined;
  }

  /** Revoke by the secret's hash; true when a live session was revoked. */
  async revoke(secretHash: string, now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable(this.table as SessionTable)
      .set({ revoked_at: now })
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Forget sessions that ended (expired or revoked) before `before`. */
  async purge(before: number): Promise<number> {
    const r = await this.db
      .deleteFrom(this.table as SessionTable)
      .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
