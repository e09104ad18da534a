// Which store errors are a row's refusal (set aside by a group commit) and which a passing fault (kept queued):
// the codes each driver really throws, and errors made by the suite's own store (SQLite or PostgreSQL).
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { isRowRefusal, isStoreUnreachable, isUniqueViolation } from '../../src/store/store-errors.ts';
import { testDialect, useStore } from '../support/store.ts';

const fresh = useStore();
const coded = (code: string) => Object.assign(new Error(code), { code });

describe('isRowRefusal', () => {
  it('is a refusal for constraint and data errors of either dialect, and a value the driver cannot bind', () => {
    for (const code of [
      '23502',
      '23505',
      '23514',
      '22001',
      '22003',
      '22021',
      '22P02',
      '22P05',
      'SQLITE_CONSTRAINT_NOTNULL',
      'SQLITE_CONSTRAINT_CHECK',
      'SQLITE_TOOBIG',
      'SQLITE_MISMATCH',
    ]) {
      expect(isRowRefusal(coded(code)), code).toBe(true);
    }
    expect(isRowRefusal(new TypeError('SQLite3 can only bind numbers, strings, bigints, buffers, and null'))).toBe(
      true,
    );
    expect(isRowRefusal(new RangeError('The bound BigInt is too large'))).toBe(true);
  });

  it('is a passing fault for everything else: connections, timeouts, a busy or full database, no code at all', () => {
    for (const code of [
      '57014',
      '57P01',
      '08006',
      '53300',
      '40001',
      '40P01',
      'ECONNRESET',
      'ECONNREFUSED',
      'SQLITE_BUSY',
      'SQLITE_FULL',
      'SQLITE_IOERR_WRITE',
      'SQLITE_LOCKED',
      'SQLITE_ERROR',
      '2200',
    ]) {
      expect(isRowRefusal(coded(code)), code).toBe(false);
    }
    expect(isRowRefusal(new Error('the SQLite writer thread stopped'))).toBe(false);
    expect(isRowRefusal(new TypeError('The database connection is not open'))).toBe(false);
    expect(isRowRefusal(null)).toBe(false);
    expect(isRowRefusal('a string')).toBe(false);
  });

  it('reads the store’s own errors: a NOT NULL and a unique violation are refusals', async () => {
    const db = fresh.store.db;
    const base = {
      model: null,
      method: 'POST',
      status: 200,
      latency_ms: 1,
      usage: null,
      amount: 0,
      upstream_request_id: null,
      error_code: null,
      created_at: 1,
    };
    const notNull = await db
      .insertInto('request_log')
      .values({ ...base, request_id: 'req_nn', token_id: 't', endpoint: null as unknown as string })
      .execute()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(notNull).not.toBeNull();
    expect(isRowRefusal(notNull)).toBe(true);
    await db
      .insertInto('request_log')
      .values({ ...base, request_id: 'req_dup', token_id: 't', endpoint: '/v1/x' })
      .execute();
    const dup = await db
      .insertInto('request_log')
      .values({ ...base, request_id: 'req_dup', token_id: 't', endpoint: '/v1/x' })
      .execute()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isUniqueViolation(dup)).toBe(true);
    expect(isRowRefusal(dup)).toBe(true);
  });
});

describe('isStoreUnreachable', () => {
  it('is true for connection failures, false for a refused row or a plain error', () => {
    for (const code of ['57P01', '57P03', '08006', '08001', '53300', 'ECONNREFUSED', 'EAI_AGAIN'])
      expect(isStoreUnreachable(coded(code)), code).toBe(true);
    expect(isStoreUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true);
    for (const code of ['23505', '22P02', '42P01', 'SQLITE_BUSY', 'SQLITE_CONSTRAINT_NOTNULL'])
      expect(isStoreUnreachable(coded(code)), code).toBe(false);
    expect(isStoreUnreachable(new Error('metering: no price'))).toBe(false);
    expect(isStoreUnreachable(null)).toBe(false);
  });

  it.runIf(testDialect() === 'postgres')(
    'reads the PostgreSQL driver’s own errors: no server listening, a connection the server ended',
    async () => {
      const closed = new pg.Client({
        connectionString: 'postgres://postgres@127.0.0.1:1/none',
        connectionTimeoutMillis: 5000,
      });
      const refused = await closed.connect().then(
        () => null,
        (e: unknown) => e,
      );
      expect(isStoreUnreachable(refused)).toBe(true);
      const victim = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      victim.on('error', () => undefined);
      await victim.connect();
      const pid = (await victim.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      const running = victim.query('select pg_sleep(30)').then(
        () => null,
        (e: unknown) => e,
      );
      const killer = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await killer.connect();
      await killer.query('select pg_terminate_backend($1)', [pid]);
      await killer.end();
      const ended = await running;
      expect(isStoreUnreachable(ended), String(ended)).toBe(true);
      await victim.end().catch(() => undefined);
    },
  );
});
