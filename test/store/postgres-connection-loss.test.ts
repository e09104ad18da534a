// PostgreSQL ending a pooled connection that sits idle (a server restart or failover, pg_terminate_backend): the
// process goes on, and the next query runs on a new connection. Found with the compose stack: PostgreSQL stopped
// under two gateways ended both processes.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres.ts';
import { testDialect } from '../support/store.ts';

const url = process.env.TEST_DATABASE_URL;
const backendPid = async (db: Awaited<ReturnType<typeof openPostgres>>) =>
  (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;

describe.runIf(testDialect() === 'postgres' && !!url)('a pooled PostgreSQL connection ended by the server', () => {
  it('does not end the process (an unheard pool error would); the next query opens a new connection', async () => {
    const db = await openPostgres(url!, { max: 1 });
    const other = await openPostgres(url!, { max: 1 });
    try {
      const pid = await backendPid(db);
      const uncaught: unknown[] = [];
      const onUncaught = (e: unknown) => uncaught.push(e);
      process.prependListener('uncaughtException', onUncaught);
      try {
        await sql`select pg_terminate_backend(${pid})`.execute(other);
        // The idle connection hears of its end (the server's FATAL, then the close) once the backend is gone.
        for (let i = 0; i < 200; i++) {
          const left = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where pid = ${pid}`.execute(
            other,
          );
          if (Number(left.rows[0]!.n) === 0) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        process.removeListener('uncaughtException', onUncaught);
      }
      expect(uncaught.map(String)).toEqual([]);
      expect(await backendPid(db)).not.toBe(pid);
    } finally {
      await other.destroy();
      await db.destroy();
    }
  });
});
