// The store suite: runs on whichever dialect TOLLWAY_TEST_DIALECT selects (npm test runs it on both). Migrations,
// the audit log, the request log and the ledger; tokens: store-tokens.test.ts; channels: store-channels.test.ts.
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/token-secret.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { AuditRepo } from '../../src/store/repos/audit.ts';
import { RequestLogWriter } from '../../src/store/repos/request-log.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { isUniqueViolation } from '../../src/store/store-errors.ts';
import { testDialect, useStore } from '../support/store.ts';

const fresh = useStore();

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
