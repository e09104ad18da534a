// The writer thread of a SQLite store: its own connection to the same file, committing the per-request rows
// (ledger charges, request-log rows) that the event loop hands over in batches, and — being the connection
// that commits almost everything — running the WAL checkpoints too. The event loop keeps only the hand-over.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import {
  prepareRowWrites,
  writeBatch,
  type LedgerCut,
  type LedgerInsert,
  type LedgerTuple,
  type LogTuple,
  type RowWrites,
} from './sqlite-row-writes.ts';

/** What the thread starts with: the database file, and the ledger statements' module when the meter gave it. */
export interface WriterData {
  path: string;
  ledgerModule: string | null;
}

/** The ledger statements' module, when given after the thread started. */
export interface WriterLedger {
  ledgerModule: string;
}

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
const data = workerData as WriterData;
const db = new BetterSqlite3(data.path);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
let writes: RowWrites | null = null;
let prepareLedger: ((raw: BetterSqlite3.Database) => LedgerInsert) | null = null;

/** Import the ledger statements (a module of metering/, by its URL: the store imports none). */
async function loadLedger(url: string): Promise<void> {
  const m = (await import(url)) as { prepareLedgerInsert: (raw: BetterSqlite3.Database) => LedgerInsert };
  prepareLedger = m.prepareLedgerInsert;
  writes = null;
}

// Messages are handled in order, each after the ledger module (when one is being loaded) is in.
let ready: Promise<void> = data.ledgerModule === null ? Promise.resolve() : loadLedger(data.ledgerModule);

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

port.on('message', (m: WriterRequest | WriterLedger | 'close') => {
  ready = ready.then(
    () => handle(m),
    () => handle(m),
  );
});

function handle(m: WriterRequest | WriterLedger | 'close'): void | Promise<void> {
  if (m === 'close') {
    db.close();
    port.close();
    return;
  }
  if ('ledgerModule' in m) return loadLedger(m.ledgerModule);
  let reply: WriterReply;
  try {
    writes ??= prepareRowWrites(db, prepareLedger);
    const out = writeBatch(writes, m.ledger, m.log);
    reply = { id: m.id, ledger: described(out.ledger), log: described(out.log), cuts: out.cuts };
  } catch (e) {
    reply = { id: m.id, ledger: described(e), log: described(e), cuts: [] };
  }
  port.postMessage(reply);
}
