// The checkpoint thread of a SQLite file store: its own connection to the same file, copying the WAL's frames
// back into the database when the event loop asks (sqlite-checkpointer.ts decides when: right after a group
// commit, with the next one held until this answers). PRAGMA wal_checkpoint(PASSIVE) never blocks a writer.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

export interface CheckpointThreadData {
  path: string;
}

/** Sent after every checkpoint: how many WAL frames there were and how many are now in the database. */
export interface CheckpointReport {
  type: 'checkpoint';
  frames: number;
  copied: number;
}

const port = parentPort!;
const { path } = workerData as CheckpointThreadData;
const db = new BetterSqlite3(path);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');

function checkpoint(): CheckpointReport {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
    return { type: 'checkpoint', frames: r?.log ?? 0, copied: r?.checkpointed ?? 0 };
  } catch {
    // Busy or failed: the frames stay safe in the WAL and the next request tries again.
    return { type: 'checkpoint', frames: -1, copied: -1 };
  }
}

port.on('message', (m: unknown) => {
  if (m === 'checkpoint') port.postMessage(checkpoint());
  else if (m === 'close') {
    db.close();
    port.close();
  }
});
port.postMessage({ type: 'ready' });
