// A store that goes away for a while, on the real store of the test run: every new connection the gateway asks
// for fails as a stopped server's does (PostgreSQL: the pool's connect refused, ECONNREFUSED; SQLite: Kysely's
// connection refused with an I/O error), until `end()`. Connections already lent out finish what they do.
import { SqliteDriver } from 'kysely';
import pg from 'pg';
import { testDialect } from './store.ts';

export interface StoreOutage {
  begin(): void;
  end(): void;
  /** Connections refused so far. */
  readonly refused: number;
}

export function storeOutage(): StoreOutage {
  let down = false;
  let refused = 0;
  const fail = (): Error => {
    refused++;
    return testDialect() === 'postgres'
      ? Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
      : Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
  };
  if (testDialect() === 'postgres') {
    const connect = pg.Pool.prototype.connect;
    pg.Pool.prototype.connect = function (this: pg.Pool, ...args: unknown[]) {
      if (down) return Promise.reject(fail());
      return (connect as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof connect;
  } else {
    const acquire = SqliteDriver.prototype.acquireConnection;
    SqliteDriver.prototype.acquireConnection = function (this: SqliteDriver) {
      if (down) return Promise.reject(fail());
      return acquire.call(this);
    };
  }
  return {
    begin: () => {
      down = true;
    },
    end: () => {
      down = false;
    },
    get refused() {
      return refused;
    },
  };
}
