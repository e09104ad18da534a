// The writer thread of a SQLite store: its own connection to the same file, committing the per-request rows
// (ledger charges, request-log rows) that the event loop hands over in batches, and — being the connection
// that commits almost everything — running the WAL checkpoints too. The event loop keeps only the hand-over.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import {
  prepareRowWrites,
  writeBatch,
  type LedgerCut,
  type LedgerTuple,
  type LogTuple,
  type RowWrites,
} from './sqlite-row-writes.ts';

export interface WriterRequest {
  id: number;
  ledger: LedgerTuple[];
  log: LogTuple[];
}

/** An error as it crosses to the event loop: what says whether the store refused the rows (store-errors.ts) kept. */
export interface WriterError {
  message: string;
  /** SQLite's result code (SQLITE_CONSTRAINT_NOTNULL …), when there is one. */
  code?: string;
  /** TypeError and RangeError: a value the driver cannot bind. */
  name?: 'TypeError' | 'RangeError';
}

/** Per kind: null when written, else the error. */
export interface WriterReply {
  id: number;
  ledger: WriterError | null;
  log: WriterError | null;
  /** The charges written cut to their balances' room: reported on the event loop, as its own writes' are. */
  cuts: LedgerCut[];
}

const port = parentPort!;
const db = new BetterSqlite3((workerData as { path: string }).path);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
let writes: RowWrites | null = null;

function described(e: unknown): WriterError | null {
  if (e === undefined) return null;
  if (!(e instanceof Error)) return { message: String(e) };
  const out: WriterError = { message: e.message };
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') out.code = code;
  if (e instanceof TypeError) out.name = 'TypeError';
  else if (e instanceof RangeError) out.name = 'RangeError';
  return out;
}

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
    reply = { id: m.id, ledger: described(out.ledger), log: described(out.log), cuts: out.cuts };
  } catch (e) {
    reply = { id: m.id, ledger: described(e), log: described(e), cuts: [] };
  }
  port.postMessage(reply);
});
