// The writer thread of a SQLite store: its own connection to the same file, committing the per-request rows
// (ledger charges, request-log rows) that the event loop hands over in batches, and — being the connection
// that commits almost everything — running the WAL checkpoints too. The event loop keeps only the hand-over.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { prepareRowWrites, writeBatch, type LedgerTuple, type LogTuple, type RowWrites } from './sqlite-row-writes.ts';

export interface WriterRequest {
  id: number;
  ledger: LedgerTuple[];
  log: LogTuple[];
}

/** Per kind: null when written, else the error's message. */
export interface WriterReply {
  id: number;
  ledger: string | null;
  log: string | null;
}

const port = parentPort!;
const db = new BetterSqlite3((workerData as { path: string }).path);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
let writes: RowWrites | null = null;

const message = (e: unknown): string | null => (e === undefined ? null : e instanceof Error ? e.message : String(e));

port.on('message', (m: WriterRequest | 'close') => {
  if (m === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: WriterReply;
  try {
    writes ??= prepareRowWrites(db);
    const out = writeBatch(writes, m.ledger, m.log);
    reply = { id: m.id, ledger: message(out.ledger), log: message(out.log) };
  } catch (e) {
    reply = { id: m.id, ledger: message(e), log: message(e) };
  }
  port.postMessage(reply);
});
