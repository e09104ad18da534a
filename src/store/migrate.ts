import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Dialect } from './dialect.ts';
import * as m001 from './migrations/001-init.ts';
import * as m002 from './migrations/002-channel-names.ts';
import * as m003 from './migrations/003-ledger-indexes.ts';
import * as m004 from './migrations/004-token-tpm-limit.ts';
import * as m005 from './migrations/005-token-rotation.ts';
import * as m006 from './migrations/006-request-log-incident.ts';
import * as m008 from './migrations/008-task-due-index.ts';
import * as m009 from './migrations/009-console-sessions.ts';
import * as m010 from './migrations/010-price-history.ts';
import * as m011 from './migrations/011-task-events.ts';
import * as m012 from './migrations/012-ledger-rowid.ts';
import * as m013 from './migrations/013-token-callback-secrets.ts';
import * as m014 from './migrations/014-channel-account.ts';
import * as m015 from './migrations/015-request-log-upstream-error.ts';
import * as m017 from './migrations/017-task-slot-queue.ts';
import * as m018 from './migrations/018-accounts.ts';
import * as m019 from './migrations/019-webhooks.ts';
import * as m020 from './migrations/020-ledger-account-partial.ts';
import * as m021 from './migrations/021-task-list-accounts.ts';
import * as m022 from './migrations/022-capacity.ts';
import * as m023 from './migrations/023-hold-price-terms.ts';
import * as m025 from './migrations/025-task-slot-turns.ts';
import * as m029 from './migrations/029-hold-key.ts';
import * as m030 from './migrations/030-ledger-holder-kind.ts';
import * as m032 from './migrations/032-task-unsent-token.ts';
import * as m040 from './migrations/040-upstream-cost.ts';
import * as m045 from './migrations/045-video-deletes-and-inputs.ts';
import * as m050 from './migrations/050-credit.ts';
import * as m060 from './migrations/060-staff.ts';
import * as m070 from './migrations/070-ledger-time.ts';
import * as m071 from './migrations/071-account-names-unique.ts';
import * as m080 from './migrations/080-portal.ts';
import * as m081 from './migrations/081-cache-versions.ts';

type DialectMigration = {
  up(db: Kysely<unknown>, d: Dialect): Promise<void>;
  down?(db: Kysely<unknown>, d: Dialect): Promise<void>;
};

// Ordered by name. Add new migrations here with the next number.
export const MIGRATIONS: Record<string, DialectMigration> = {
  '001-init': m001,
  '002-channel-names': m002,
  '003-ledger-indexes': m003,
  '004-token-tpm-limit': m004,
  '005-token-rotation': m005,
  '006-request-log-incident': m006,
  '008-task-due-index': m008,
  '009-console-sessions': m009,
  '010-price-history': m010,
  '011-task-events': m011,
  '012-ledger-rowid': m012,
  '013-token-callback-secrets': m013,
  '014-channel-account': m014,
  '015-request-log-upstream-error': m015,
  '017-task-slot-queue': m017,
  '018-accounts': m018,
  '019-webhooks': m019,
  '020-ledger-account-partial': m020,
  '021-task-list-accounts': m021,
  '022-capacity': m022,
  '023-hold-price-terms': m023,
  '025-task-slot-turns': m025,
  '029-hold-key': m029,
  '030-ledger-holder-kind': m030,
  '032-task-unsent-token': m032,
  '040-upstream-cost': m040,
  '045-video-deletes-and-inputs': m045,
  '050-credit': m050,
  '060-staff': m060,
  '070-ledger-time': m070,
  '071-account-names-unique': m071,
  '080-portal': m080,
  '081-cache-versions': m081,
};

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(MIGRATIONS)) {
      out[name] = {
        up: (db) => m.up(db, this.dialect),
        ...(m.down ? { down: (db: Kysely<unknown>) => m.down!(db, this.dialect) } : {}),
      };
    }
    return out;
  }
}

async function migratorFor(db: Kysely<unknown>, dialect: Dialect): Promise<Migrator> {
  // Kysely looks for its migration tables in *any* schema unless told which one; on a PostgreSQL database
  // with several schemas (test isolation, shared servers) it would find another schema's lock table and
  // never create its own. Pin the bookkeeping to the schema this connection actually uses.
  const schema =
    dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
      : undefined;
  return new Migrator({
    db,
    provider: new StaticProvider(dialect),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/** The migrations this build knows that the database has not recorded as applied (readiness). */
export async function pendingMigrations(db: Kysely<unknown>, dialect: Dialect): Promise<string[]> {
  const all = await (await migratorFor(db, dialect)).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect): Promise<string[]> {
  const migrator = await migratorFor(db, dialect);
  // (Its introspection is scoped to this schema on PostgreSQL — see postgres.ts — so other schemas changing
  // meanwhile cannot fail it.)
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
