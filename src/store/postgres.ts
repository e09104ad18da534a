import pg from 'pg';
import {
  Kysely,
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';
import type { Database } from './schema.ts';

// int8 (bigint) columns hold ms timestamps and micro-units, all well inside 2^53: read them as numbers.
pg.types.setTypeParser(20, (v: string) => Number(v));

export interface PostgresOptions {
  /** Schema to use as search_path (tests isolate themselves in a schema each). */
  schema?: string;
  max?: number;
}

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Kysely<Database>> {
  if (opts.schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error('invalid schema name');
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`);
    } finally {
      await c.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  // An idle connection that the server ends (a restart, a failover, pg_terminate_backend) is reported as the
  // pool's 'error' event; unheard, Node ends the process. The pool has already dropped that connection: the next
  // query opens a new one, and fails with its own error while the server is away.
  pool.on('error', () => undefined);
  return new Kysely<Database>({ dialect: new ScopedPostgresDialect({ pool }) });
}

/**
 * Introspection of the connection's own schema only. Kysely's PostgreSQL introspector reads the tables and columns
 * of *every* schema; its migrator uses it just to ask whether its bookkeeping tables exist. On a server shared with
 * other schemas (other tenants, parallel test files) a schema, table or column dropped during that read failed our
 * migration — "schema … does not exist", "relation … does not exist", "column … does not exist".
 * Reading `current_schema()` alone cannot meet another schema's changes.
 */
class ScopedIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const r = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return r.rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const r = await sql<{ name: string; schema: string; type: string }>`
      select table_name as name, table_schema as schema, table_type as type
      from information_schema.tables where table_schema = current_schema()`.execute(this.db);
    // Column details are not needed by any caller (the migrator checks table names).
    return r.rows.map((t) => ({ name: t.name, schema: t.schema, isView: t.type === 'VIEW', columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

class ScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new ScopedIntrospector(db);
  }
}
