// The store's tokens, on whichever dialect TOLLWAY_TEST_DIALECT selects: round-trips, null limits, only the secret's
// hash stored, unique ids and hashes.
import { describe, expect, it } from 'vitest';
import { hashToken, newId, newTokenSecret } from '../../src/auth/token-secret.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { isUniqueViolation } from '../../src/store/store-errors.ts';
import { testDialect, useStore } from '../support/store.ts';

const fresh = useStore();

describe(`store on ${testDialect()}`, () => {
  describe('tokens', () => {
    it('create / get / findByHash / list / revoke round-trip', async () => {
      const repo = new TokensRepo(fresh.store.db);
      const secret = newTokenSecret();
      const id = newId('tok');
      const rec = await repo.create(
        {
          id,
          name: 'crud',
          secretHash: hashToken(secret),
          prefix: secret.slice(0, 7),
          models: ['qwx3.7-plus'],
          quota: 5_000_000,
          expiresAt: 4_102_444_800_000,
          rpmLimit: 60,
          tpmLimit: 90_000,
          concurrencyLimit: 2,
        },
        1_700_000_000_000,
      );
      expect(rec).toMatchObject({
        id,
        name: 'crud',
        models: ['qwx3.7-plus'],
        quota: 5_000_000,
        spent: 0,
        held: 0,
        rpmLimit: 60,
        tpmLimit: 90_000,
        concurrencyLimit: 2,
        revokedAt: null,
        createdAt: 1_700_000_000_000,
      });
      expect(await repo.get(id)).toEqual(rec);
      expect(await repo.findByHash(hashToken(secret))).toEqual(rec);
      expect(await repo.findByHash(hashToken('tw-not-a-token'))).toBeNull();
      expect((await repo.list()).map((t) => t.id)).toContain(id);

      const hash = await repo.revoke(id, 1_700_000_001_000);
      expect(hash).toBe(hashToken(secret));
      expect((await repo.get(id))?.revokedAt).toBe(1_700_000_001_000);
      // A second revoke keeps the first revocation time.
      await repo.revoke(id, 1_700_000_009_000);
      expect((await repo.get(id))?.revokedAt).toBe(1_700_000_001_000);
      expect(await repo.revoke('tok_nope')).toBeNull();
    });

    it('null allow-list and quota round-trip as null (any model, unlimited)', async () => {
      const repo = new TokensRepo(fresh.store.db);
      const rec = await repo.create({
        id: newId('tok'),
        name: 'open',
        secretHash: hashToken(newTokenSecret()),
        prefix: 'tw-',
        models: null,
        quota: null,
        expiresAt: null,
      });
      const back = await repo.get(rec.id);
      expect(back?.models).toBeNull();
      expect(back?.quota).toBeNull();
      expect(back?.expiresAt).toBeNull();
    });

    it('stores only the SHA-256 hash of the secret, never the secret', async () => {
      const repo = new TokensRepo(fresh.store.db);
      const secret = newTokenSecret();
      const rec = await repo.create({
        id: newId('tok'),
        name: 'hash',
        secretHash: hashToken(secret),
        prefix: secret.slice(0, 7),
        models: null,
        quota: null,
        expiresAt: null,
      });
      const row = await fresh.store.db
        .selectFrom('tokens')
        .selectAll()
        .where('id', '=', rec.id)
        .executeTakeFirstOrThrow();
      expect(row.secret_hash).toBe(hashToken(secret));
      expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      const all = JSON.stringify(await fresh.store.db.selectFrom('tokens').selectAll().execute());
      expect(all).not.toContain(secret);
    });

    it('unique: the same id or the same secret hash cannot be stored twice', async () => {
      const repo = new TokensRepo(fresh.store.db);
      const h = hashToken(newTokenSecret());
      await repo.create({
        id: 'tok_uniq',
        name: 'u',
        secretHash: h,
        prefix: 'tw-',
        models: null,
        quota: null,
        expiresAt: null,
      });
      const dupHash = await repo
        .create({
          id: 'tok_uniq2',
          name: 'u',
          secretHash: h,
          prefix: 'tw-',
          models: null,
          quota: null,
          expiresAt: null,
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(dupHash)).toBe(true);
      const dupId = await repo
        .create({
          id: 'tok_uniq',
          name: 'u',
          secretHash: hashToken(newTokenSecret()),
          prefix: 'tw-',
          models: null,
          quota: null,
          expiresAt: null,
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(dupId)).toBe(true);
    });
  });
});
