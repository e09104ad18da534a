// Staff people and their personal admin keys (migration 060). A key is found by its SHA-256 only; a person's keys
// list shows everything but that hash.
import type { Kysely, Selectable } from 'kysely';
import type { Database, StaffKeysTable, StaffPeopleTable } from '../schema.ts';

export interface PersonRecord {
  id: string;
  name: string;
  email: string;
  role: string;
  disabledAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface StaffKeyRecord {
  id: string;
  personId: string;
  name: string | null;
  prefix: string;
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}

export interface PersonPatch {
  name?: string;
  role?: string;
  disabledAt?: number | null;
}

const toPerson = (r: Selectable<StaffPeopleTable>): PersonRecord => ({
  id: r.id,
  name: r.name,
  email: r.email,
  role: r.role,
  disabledAt: r.disabled_at === null ? null : Number(r.disabled_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const KEY_COLUMNS = ['id', 'person_id', 'name', 'prefix', 'expires_at', 'revoked_at', 'created_at'] as const;

const toKey = (r: Omit<Selectable<StaffKeysTable>, 'secret_hash'>): StaffKeyRecord => ({
  id: r.id,
  personId: r.person_id,
  name: r.name,
  prefix: r.prefix,
  expiresAt: Number(r.expires_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  createdAt: Number(r.created_at),
});

export class StaffRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** A new person with a first key, in one transaction: a person never exists without the key they were shown. */
  async createPerson(p: PersonRecord, key: StaffKeyRecord & { secretHash: string }): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('staff_people').values(personRow(p)).execute();
      await tx.insertInto('staff_keys').values(keyRow(key)).execute();
    });
  }

  /** A person without a key: one single sign-on made, who signs in through the issuer only. */
  async insertPerson(p: PersonRecord): Promise<void> {
    await this.db.insertInto('staff_people').values(personRow(p)).execute();
  }

  async person(id: string): Promise<PersonRecord | null> {
    const r = await this.db.selectFrom('staff_people').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toPerson(r) : null;
  }

  async personByEmail(email: string): Promise<PersonRecord | null> {
    const r = await this.db.selectFrom('staff_people').selectAll().where('email', '=', email).executeTakeFirst();
    return r ? toPerson(r) : null;
  }

  /** Oldest first, after the (created_at, id) of an earlier page's last person. */
  async page(limit: number, after?: { createdAt: number; id: string }): Promise<PersonRecord[]> {
    let q = this.db.selectFrom('staff_people').selectAll();
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '>', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
        ]),
      );
    const rows = await q.orderBy('created_at').orderBy('id').limit(limit).execute();
    return rows.map(toPerson);
  }

  /** The changed person, or null when there is none with this id. */
  async updatePerson(id: string, patch: PersonPatch, now = Date.now()): Promise<PersonRecord | null> {
    const set = {
      updated_at: now,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.role !== undefined ? { role: patch.role } : {}),
      ...(patch.disabledAt !== undefined ? { disabled_at: patch.disabledAt } : {}),
    };
    const r = await this.db.updateTable('staff_people').set(set).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0 ? this.person(id) : null;
  }

  async addKey(key: StaffKeyRecord & { secretHash: string }): Promise<void> {
    await this.db.insertInto('staff_keys').values(keyRow(key)).execute();
  }

  /**
   * Revoke the live key `oldId` of `personId` and add `key`, in one transaction: true when the old key was live (a
   * second rotation of the same key finds it revoked and adds nothing).
   */
  async rotateKey(
    personId: string,
    oldId: string,
    key: StaffKeyRecord & { secretHash: string },
    now = Date.now(),
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx
        .updateTable('staff_keys')
        .set({ revoked_at: now })
        .where('id', '=', oldId)
        .where('person_id', '=', personId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await tx.insertInto('staff_keys').values(keyRow(key)).execute();
      return true;
    });
  }

  /** True when a live key of the person was revoked. */
  async revokeKey(personId: string, keyId: string, now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('staff_keys')
      .set({ revoked_at: now })
      .where('id', '=', keyId)
      .where('person_id', '=', personId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async key(personId: string, keyId: string): Promise<StaffKeyRecord | null> {
    const r = await this.db
      .selectFrom('staff_keys')
      .select(KEY_COLUMNS)
      .where('id', '=', keyId)
      .where('person_id', '=', personId)
      .executeTakeFirst();
    return r ? toKey(r) : null;
  }

  /** A person's keys, newest first (revoked and expired ones too: the list is their history). */
  async keys(personId: string): Promise<StaffKeyRecord[]> {
    const rows = await this.db
      .selectFrom('staff_keys')
      .select(KEY_COLUMNS)
      .where('person_id', '=', personId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toKey);
  }

  /** The key whose secret hashes to `secretHash` (live or not: the caller says why it is refused) and its person. */
  async byHash(secretHash: string): Promise<{ key: StaffKeyRecord; person: PersonRecord } | null> {
    const k = await this.db
      .selectFrom('staff_keys')
      .select(KEY_COLUMNS)
      .where('secret_hash', '=', secretHash)
      .executeTakeFirst();
    if (!k) return null;
    const person = await this.person(k.person_id);
    return person ? { key: toKey(k), person } : null;
  }
}

function personRow(p: PersonRecord) {
  return {
    id: p.id,
    name: p.name,
    email: p.email,
    role: p.role,
    disabled_at: p.disabledAt,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

function keyRow(k: StaffKeyRecord & { secretHash: string }) {
  return {
    id: k.id,
    person_id: k.personId,
    name: k.name,
    prefix: k.prefix,
    secret_hash: k.secretHash,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
    created_at: k.createdAt,
  };
}
