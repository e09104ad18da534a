// Members of customer accounts and their member keys (migration 080). A key is found by its SHA-256 only; lists show
// everything but that hash.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../schema.ts';
import type { AccountMembersTable, MemberKeysTable } from '../schema-portal.ts';

export interface MemberRecord {
  id: string;
  accountId: string;
  name: string;
  email: string;
  revokedAt: number | null;
  createdAt: number;
}

export interface MemberKeyRecord {
  id: string;
  memberId: string;
  prefix: string;
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}

export type NewMemberKey = MemberKeyRecord & { secretHash: string };

const num = (v: number | null): number | null => (v === null ? null : Number(v));

const toMember = (r: Selectable<AccountMembersTable>): MemberRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  email: r.email,
  revokedAt: num(r.revoked_at),
  createdAt: Number(r.created_at),
});

const KEY_COLUMNS = ['id', 'member_id', 'prefix', 'expires_at', 'revoked_at', 'created_at'] as const;

const toKey = (r: Omit<Selectable<MemberKeysTable>, 'secret_hash'>): MemberKeyRecord => ({
  id: r.id,
  memberId: r.member_id,
  prefix: r.prefix,
  expiresAt: Number(r.expires_at),
  revokedAt: num(r.revoked_at),
  createdAt: Number(r.created_at),
});

const keyRow = (k: NewMemberKey) => ({
  id: k.id,
  member_id: k.memberId,
  prefix: k.prefix,
  secret_hash: k.secretHash,
  expires_at: k.expiresAt,
  revoked_at: k.revokedAt,
  created_at: k.createdAt,
});

export class MembersRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** A member with a first key, in one transaction: a member never exists without the key they were shown. */
  async create(m: MemberRecord, key: NewMemberKey): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('account_members')
        .values({
          id: m.id,
          account_id: m.accountId,
          name: m.name,
          email: m.email,
          revoked_at: m.revokedAt,
          created_at: m.createdAt,
        })
        .execute();
      await tx.insertInto('member_keys').values(keyRow(key)).execute();
    });
  }

  async get(id: string): Promise<MemberRecord | null> {
    const r = await this.db.selectFrom('account_members').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toMember(r) : null;
  }

  /** An account's members, oldest first (revoked ones too: the list is their history). */
  async ofAccount(accountId: string): Promise<MemberRecord[]> {
    const rows = await this.db
      .selectFrom('account_members')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toMember);
  }

  /** Every live member with this (lower-cased) e-mail, in any account: what a sign-in by identity provider finds. */
  async liveByEmail(email: string): Promise<MemberRecord[]> {
    const rows = await this.db
      .selectFrom('account_members')
      .selectAll()
      .where('email', '=', email)
      .where('revoked_at', 'is', null)
      .orderBy('created_at')
      .execute();
    return rows.map(toMember);
  }

  /** Revoke a live member and every key of theirs; true when the member was live. */
  async revoke(accountId: string, id: string, now = Date.now()): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx
        .updateTable('account_members')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await tx
        .updateTable('member_keys')
        .set({ revoked_at: now })
        .where('member_id', '=', id)
        .where('revoked_at', 'is', null)
        .execute();
      return true;
    });
  }

  /**
   * Revoke the live key `oldId` of `memberId` and add `key`, in one transaction: true when the old key was live (a
   * second rotation of the same key finds it revoked and adds nothing).
   */
  async rotateKey(memberId: string, oldId: string, key: NewMemberKey, now = Date.now()): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx
        .updateTable('member_keys')
        .set({ revoked_at: now })
        .where('id', '=', oldId)
        .where('member_id', '=', memberId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await tx.insertInto('member_keys').values(keyRow(key)).execute();
      return true;
    });
  }

  async key(memberId: string, keyId: string): Promise<MemberKeyRecord | null> {
    const r = await this.db
      .selectFrom('member_keys')
      .select(KEY_COLUMNS)
      .where('id', '=', keyId)
      .where('member_id', '=', memberId)
      .executeTakeFirst();
    return r ? toKey(r) : null;
  }

  /** A member's keys, newest first. */
  async keys(memberId: string): Promise<MemberKeyRecord[]> {
    const rows = await this.db
      .selectFrom('member_keys')
      .select(KEY_COLUMNS)
      .where('member_id', '=', memberId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toKey);
  }

  /** The key whose secret hashes to `secretHash` (live or not: the caller says why it is refused) and its member. */
  async byHash(secretHash: string): Promise<{ key: MemberKeyRecord; member: MemberRecord } | null> {
    const k = await this.db
      .selectFrom('member_keys')
      .select(KEY_COLUMNS)
      .where('secret_hash', '=', secretHash)
      .executeTakeFirst();
    if (!k) return null;
    const member = await this.get(k.member_id);
    return member ? { key: toKey(k), member } : null;
  }

  /** The stored hash of a key (tests check that only the hash is kept). */
  async hashOf(keyId: string): Promise<string | null> {
    const r = await this.db.selectFrom('member_keys').select('secret_hash').where('id', '=', keyId).executeTakeFirst();
    return r?.secret_hash ?? null;
  }
}
