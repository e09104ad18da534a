// The read thread of a SQLite file store: its own read-only connection to the same file, running the heavy admin
// reads (bills over the whole ledger, list pages, reconciliation) so their time is spent off the event loop. WAL
// lets this reader run while the gateway's connection commits; each query sees the last commit before it started.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { StatementCache } from './sqlite-statement-cache.ts';

export interface ReadRequest {
  id: number;
  sql: string;
  params: unknown[];
}

export type ReadReply = { id: number; rows: unknown[] } | { id: number; error: string; code?: string };

const port = parentPort!;
const db = new BetterSqlite3((workerData as { path: string }).path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
// The admin reads reuse a handful of statements.
const statements = new StatementCache(db, 64);

port.on('message', (m: ReadRequest | 'close') => {
  if (m === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: ReadReply;
  try {
    const st = statements.prepare(m.sql);
    if (!st.reader) throw new Error('the read thread runs queries that return rows only');
    reply = { id: m.id, rows: st.all(...m.params) };
  } catch (e) {
    const err = e as { message?: string; code?: string };
    reply = {
      id: m.id,
      error: String(err?.message ?? e),
      ...(typeof err?.code === 'string' ? { code: err.code } : {}),
    };
  }
  port.postMessage(reply);
});
