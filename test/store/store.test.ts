// The store suite: runs on whichever dialect TOLLWAY_TEST_DIALECT selects (npm test runs it on both).
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { hashToken, newId, newTokenSecret } from '../../src/auth/token-secret.ts';
import { createChannel } from '../../src/core/admin/channels.ts';
import { ChannelRegistry } from '../../src/routing/channel-registry.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { AuditRepo } from '../../src/store/repos/audit.ts';
import { ChannelsRepo } from '../../src/store/repos/channels.ts';
import { RequestLogWriter } from '../../src/store/repos/request-log.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { isUniqueViolation } from '../../src/store/store-errors.ts';
import { testDialect, useStore } from '../support/store.ts';

const fresh = useStore();

const CANARY_KEY = 'sk-STORE-CANARY-abcdef123456';

describe(`store on ${testDialect()}`, () => {
  it('opens the dialect the test run asked for', () => {
    expect(fresh.store.dialect).toBe(testDialect());
  });

  it('migrations are idempotent: migrating again applies nothing and keeps data', async () => {
    const tokens = new TokensRepo(fresh.store.db);
    await tokens.create({
      id: 'tok_migr',
      name: 'm',
      secretHash: hashToken('x-migr'),
      prefix: 'x-mi',
      models: null,
      quota: null,
      expiresAt: null,
    });
    const again = await migrateToLatest(fresh.store.db as unknown as Kysely<unknown>, fresh.store.dialect);
    expect(again).toEqual([]);
    const third = await migrateToLatest(fresh.store.db as unknown as Kysely<unknown>, fresh.store.dialect);
    expect(third).toEqual([]);
    expect((await tokens.get('tok_migr'))?.name).toBe('m');
  });

  it('has every table later issues rely on', async () => {
    for (const t of [
      'tokens',
      'channels',
      'audit_log',
      'request_log',
      'ledger',
      'holds',
      'tasks',
      'sessions',
      'callbacks',
      'catalogue_overrides',
    ] as const) {
      const rows = await fresh.store.db.selectFrom(t).selectAll().limit(1).execute();
      expect(Array.isArray(rows)).toBe(true);
    }
  });

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

  describe('channels', () => {
    it('create / get / list / setStatus / update / findByName', async () => {
      const repo = new ChannelsRepo(fresh.store.db);
      const rec = await repo.create(
        {
          id: 'ch_crud',
          name: 'crud-ch',
          kind: 'dashscope',
          baseUrl: 'https://dashscope.aliyuncs.com',
          keyEnc: 'v1:x:y:z',
          models: ['qwx3.7-plus'],
          priority: 5,
        },
        1_000,
      );
      expect(rec).toMatchObject({
        id: 'ch_crud',
        status: 'enabled',
        priority: 5,
        weight: 1,
        models: ['qwx3.7-plus'],
        createdAt: 1_000,
      });
      expect(await repo.get('ch_crud')).toEqual(rec);
      expect((await repo.findByName('crud-ch'))?.id).toBe('ch_crud');
      expect(await repo.findByName('nope')).toBeNull();
      expect(await repo.setStatus('ch_crud', 'disabled', 2_000)).toBe(true);
      expect(await repo.get('ch_crud')).toMatchObject({ status: 'disabled', updatedAt: 2_000 });
      expect(await repo.setStatus('ch_missing', 'disabled')).toBe(false);
      await repo.update('ch_crud', { baseUrl: 'https://dashscope.aliyuncs.com/x', models: null }, 3_000);
      expect(await repo.get('ch_crud')).toMatchObject({
        baseUrl: 'https://dashscope.aliyuncs.com/x',
        models: null,
        updatedAt: 3_000,
        keyEnc: 'v1:x:y:z',
      });
      expect((await repo.list()).map((c) => c.id)).toContain('ch_crud');
    });

    it('unique: channel ids and names are unique', async () => {
      const repo = new ChannelsRepo(fresh.store.db);
      await repo.create({
        id: 'ch_u1',
        name: 'uniq-name',
        kind: 'kling',
        baseUrl: 'https://api-beijing.klingai.com',
        keyEnc: 'v1:a:b:c',
        models: null,
      });
      const dupId = await repo
        .create({
          id: 'ch_u1',
          name: 'other-name',
          kind: 'kling',
          baseUrl: 'https://api-beijing.klingai.com',
          keyEnc: 'v1:a:b:c',
          models: null,
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(dupId)).toBe(true);
      const dupName = await repo
        .create({
          id: 'ch_u2',
          name: 'uniq-name',
          kind: 'kling',
          baseUrl: 'https://api-beijing.klingai.com',
          keyEnc: 'v1:a:b:c',
          models: null,
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(dupName)).toBe(true);
    });

    it('keys are stored encrypted: the raw key never appears in the channels table, and decrypts back', async () => {
      const repos = { channels: new ChannelsRepo(fresh.store.db) };
      const box = new SecretBox('store-test-secret-0123456789');
      const registry = new ChannelRegistry(repos.channels, box);
      const rec = await createChannel(
        { repos: repos as never, box, applyChange: () => registry.reload() },
        {
          name: 'enc',
          kind: 'dashscope',
          baseUrl: 'https://dashscope.aliyuncs.com',
          keys: { apiKey: CANARY_KEY },
          models: null,
        },
      );
      const rows = await fresh.store.db.selectFrom('channels').selectAll().execute();
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(CANARY_KEY);
      expect(dump).not.toContain('STORE-CANARY');
      expect(rows.find((r) => r.id === rec.id)?.key_enc).toMatch(/^v1:/);
      // The registry (enabled channels in memory) decrypts it for use upstream.
      expect(registry.get(rec.id)?.keys.apiKey).toBe(CANARY_KEY);
      // A different secret cannot read it.
      expect(() =>
        new SecretBox('another-secret-0123456789').open(rows.find((r) => r.id === rec.id)!.key_enc),
      ).toThrow();
    });
  });

  describe('audit log', () => {
    it('writes and lists newest first with detail JSON', async () => {
      const repo = new AuditRepo(fresh.store.db);
      await repo.write(
        {
          actor: 'admin',
          action: 'token.create',
          target: 'tok_a',
          detail: { name: 'a', models: ['x'] },
          requestId: 'req_1',
        },
        10,
      );
      await repo.write({ actor: 'cli', action: 'token.revoke', target: 'tok_a' }, 20);
      const list = await repo.list(2);
      expect(list).toHaveLength(2);
      expect(list[0]).toMatchObject({
        actor: 'cli',
        action: 'token.revoke',
        target: 'tok_a',
        detail: null,
        requestId: null,
        at: 20,
      });
      expect(list[1]).toMatchObject({
        actor: 'admin',
        action: 'token.create',
        detail: { name: 'a', models: ['x'] },
        requestId: 'req_1',
        at: 10,
      });
      expect(list[0]!.id).toBeGreaterThan(list[1]!.id);
    });
  });

  describe('request log', () => {
    it('batches rows, flushes them, and ignores a duplicate request id', async () => {
      const errors: unknown[] = [];
      const w = new RequestLogWriter(fresh.store.db, {
        batchWriter: fresh.store.batchWriter,
        onError: (e) => errors.push(e),
        intervalMs: 1_000_000,
      });
      const row = {
        requestId: 'req_store_1',
        tokenId: 'tok_a',
        model: 'qwx3.7-plus',
        endpoint: '/v1/chat/completions',
        method: 'POST',
        status: 200,
        latencyMs: 12,
        usage: { prompt_tokens: 3 },
        amount: 42,
        upstreamRequestId: 'up-1',
        errorCode: null,
        createdAt: 99,
      };
      w.write(row);
      w.write({ ...row, status: 500 });
      w.write({ ...row, requestId: 'req_store_2', usage: null });
      await w.flush();
      expect(errors).toEqual([]);
      const rows = await fresh.store.db
        .selectFrom('request_log')
        .selectAll()
        .where('request_id', 'in', ['req_store_1', 'req_store_2'])
        .orderBy('request_id')
        .execute();
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({
        request_id: 'req_store_1',
        status: 200,
        amount: 42,
        usage: JSON.stringify({ prompt_tokens: 3 }),
      });
      expect(rows[1]!.usage).toBeNull();
    });
  });

  describe('ledger', () => {
    it('idempotency keys are unique', async () => {
      const entry = {
        idempotency_key: 'idem-1',
        token_id: 'tok_a',
        model: 'qwx3.7-plus',
        kind: 'tokens',
        quantities: '{}',
        unit_prices: '{}',
        amount: 7,
        request_id: null,
        task_id: null,
        upstream_request_id: null,
        created_at: 1,
      };
      await fresh.store.db.insertInto('ledger').values(entry).execute();
      const dup = await fresh.store.db
        .insertInto('ledger')
        .values(entry)
        .execute()
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(dup)).toBe(true);
      // bigint columns come back as JS numbers in both dialects.
      const back = await fresh.store.db
        .selectFrom('ledger')
        .select(['amount', 'created_at'])
        .where('idempotency_key', '=', 'idem-1')
        .executeTakeFirstOrThrow();
      expect(back.amount).toBe(7);
      expect(typeof back.created_at).toBe('number');
    });
  });
});
