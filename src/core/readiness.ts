// Can this instance serve traffic? (GET /readyz.) The database answers a query, it holds every migration this
// build knows, and Redis answers when it is configured. Liveness (GET /healthz) asks none of this.
import { sql, type Kysely } from 'kysely';
import type { ClusterBus } from '../cluster/cluster-bus.ts';
import { pendingMigrations } from '../store/migrate.ts';
import type { Store } from '../store/store.ts';

export interface ReadinessDeps {
  readonly store: Store;
  readonly cluster: ClusterBus;
}

export type CheckResult = 'ok' | 'failed' | 'not_configured';

export interface Readiness {
  ready: boolean;
  checks: { database: CheckResult; migrations: CheckResult; redis: CheckResult };
  /** What is wrong, in words an operator acts on (empty when ready). */
  problems: string[];
}

/** A probe that does not answer within this time counts as failed: a load balancer's probe must not hang. */
const CHECK_TIMEOUT_MS = 2_000;

// Migrations only move forward while a process runs: once its store holds them all, they are not asked again.
const migrated = new WeakSet<Store>();

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const store = deps.store;
  const problems: string[] = [];
  const database = within(sql`select 1`.execute(store.db), 'the database').then(
    () => 'ok' as const,
    () => {
      problems.push('the database is not reachable');
      return 'failed' as const;
    },
  );
  const redisPing = deps.cluster.ping();
  const redis: Promise<CheckResult> =
    redisPing === null
      ? Promise.resolve('not_configured')
      : within(redisPing, 'Redis').then(
          () => 'ok' as const,
          () => {
            problems.push('Redis is not reachable');
            return 'failed' as const;
          },
        );
  const db = await database;
  let migrations: CheckResult = 'failed';
  if (db === 'ok') {
    if (migrated.has(store)) migrations = 'ok';
    else {
      const pending = await within(
        pendingMigrations(store.db as unknown as Kysely<unknown>, store.dialect),
        'the database',
      ).catch(() => null);
      if (pending === null) problems.push('the applied migrations could not be read');
      else if (pending.length > 0) problems.push(`migrations not applied: ${pending.join(', ')}`);
      else {
        migrated.add(store);
        migrations = 'ok';
      }
    }
  }
  const checks = { database: db, migrations, redis: await redis };
  return { ready: problems.length === 0 && db === 'ok', checks, problems };
}
