// A fresh, migrated store on the dialect of the test run: TOLLWAY_TEST_DIALECT=postgres (with TEST_DATABASE_URL)
// for a PostgreSQL schema of its own, else a SQLite file in a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openStore, type OpenStoreOptions, type Store } from '../../src/store/store.ts';

export type TestDialect = 'sqlite' | 'postgres';

export function testDialect(): TestDialect {
  return process.env.TOLLWAY_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite';
}

let schemaSeq = 0;

/** A fresh, migrated store for the current test dialect (SQLite temp file, or a fresh PostgreSQL schema). */
export async function freshStore(): Promise<{
  store: Store;
  url: string;
  pgSchema?: string;
  cleanup(): Promise<void>;
}> {
  if (testDialect() === 'postgres') {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TOLLWAY_TEST_DIALECT=postgres needs TEST_DATABASE_URL');
    const pgSchema = `t_${process.pid}_${Date.now().toString(36)}_${schemaSeq++}`;
    const store = await openStore(url, { pgSchema });
    return {
      store,
      url,
      pgSchema,
      cleanup: async () => {
        await store.db.schema
          .dropSchema(pgSchema)
          .ifExists()
          .cascade()
          .execute()
          .catch(() => undefined);
        await store.close();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tollway-test-'));
  const url = `sqlite:${join(dir, 'test.db')}`;
  const store = await openStore(url);
  return {
    store,
    url,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type FreshStore = Awaited<ReturnType<typeof freshStore>>;

/** The URL another process (a gateway child, the CLI) opens to reach `fresh`: on PostgreSQL its schema rides in the
 * URL's libpq `options` (honoured by node-postgres). */
export function processUrl(fresh: FreshStore): string {
  if (!fresh.pgSchema) return fresh.url;
  const sep = fresh.url.includes('?') ? '&' : '?';
  return `${fresh.url}${sep}options=${encodeURIComponent(`-c search_path=${fresh.pgSchema}`)}`;
}

/**
 * A fresh store for a test file or a describe block: opened before its tests, dropped after them. Read `.store` inside
 * tests and hooks.
 */
export function useStore(): { readonly store: Store; readonly url: string; readonly pgSchema: string | undefined } {
  let fresh: FreshStore | undefined;
  beforeAll(async () => {
    fresh = await freshStore();
  });
  afterAll(async () => fresh?.cleanup());
  return {
    get store() {
      return fresh!.store;
    },
    get url() {
      return fresh!.url;
    },
    get pgSchema() {
      return fresh!.pgSchema;
    },
  };
}

/**
 * A SQLite store in a file of its own opened with `opts` (the tests of SQLite's own threads), whatever the run's
 * dialect. `close()` closes it once; `cleanup()` closes it and removes the file.
 */
export async function sqliteFileStore(
  opts: OpenStoreOptions = {},
): Promise<{ store: Store; url: string; file: string; close(): Promise<void>; cleanup(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tollway-sqlite-'));
  const file = join(dir, 'test.db');
  const url = `sqlite:${file}`;
  const store = await openStore(url, opts);
  let closed = false;
  const close = async () => {
    if (!closed) await store.close();
    closed = true;
  };
  return {
    store,
    url,
    file,
    close,
    cleanup: async () => {
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
