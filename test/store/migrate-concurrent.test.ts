// PostgreSQL: migrating a schema while another client creates and drops other schemas (what parallel test
// files, or other tenants of a shared server, do). Kysely's own introspection reads every schema's tables, so a
// schema dropped mid-read would fail the migration with "schema … does not exist", and a table dropped
// mid-read with "relation … does not exist" (and a column with "column … does not exist"). Introspection is
// scoped to the connection's own schema.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.ts';
import { testDialect } from '../support/store.ts';

describe.skipIf(testDialect() !== 'postgres')('migrations beside concurrent schema drops', () => {
  it('every migration succeeds while other schemas (with serial tables) come and go', async () => {
    const url = process.env.TEST_DATABASE_URL!;
    const churn = new pg.Client({ connectionString: url });
    await churn.connect();
    let stop = false;
    let cycles = 0;
    const churning = (async () => {
      for (let i = 0; !stop; i++) {
        const s = `churn_${process.pid}_${i % 4}`;
        await churn.query(
          `CREATE SCHEMA IF NOT EXISTS ${s}; CREATE TABLE IF NOT EXISTS ${s}.t (id serial primary key, v text); CREATE TABLE IF NOT EXISTS ${s}.u (id serial primary key)`,
        );
        // Columns and tables dropped one by one as well as with their schema (42703, 42P01 and 3F000 mid-read).
        if (i % 2 === 0) await churn.query(`ALTER TABLE ${s}.t DROP COLUMN v; DROP TABLE ${s}.t; DROP TABLE ${s}.u`);
        await churn.query(`DROP SCHEMA ${s} CASCADE`);
        cycles++;
      }
    })();
    const failures: unknown[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        const schema = `mig_${process.pid}_${Date.now().toString(36)}_${i}`;
        try {
          const store = await openStore(url, { pgSchema: schema });
          const t = await store.db.selectFrom('tokens').select('id').execute();
          expect(t).toEqual([]);
          await store.db.schema.dropSchema(schema).cascade().execute();
          await store.close();
        } catch (e) {
          failures.push(e);
        }
      }
    } finally {
      stop = true;
      await churning.catch(() => undefined);
      await churn.end();
    }
    expect(cycles).toBeGreaterThan(10);
    expect(failures.map(String)).toEqual([]);
  }, 180_000);
});
