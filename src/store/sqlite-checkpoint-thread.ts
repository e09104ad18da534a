// The checkpoint thread of a SQLite file store: its own connection to the same file, copying the WAL's frames
// back into the database when the event loop asks (sqlite-checkpointer.ts decides when: right after a group
// commit, with the next one held until this answers). PRAGMA wal_checkpoint(PASSIVE) never blocks a writer.
// A checkpoint that copied every frame lets the next write start the WAL over from its beginning, and SQLite syncs the
// WAL's new header in that write (an fsync, so that a frame written after the restart cannot reach the disk before
// the header that makes it valid). That write is made here, right after the checkpoint: the fsync happens on this
// thread, and the event loop's next group commit appends to the restarted WAL without one.
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
// No waiting for locks: PASSIVE checkpoints never wait anyway, and the restart write is worth doing only when the
// write lock is free at once (else the next commit restarts the WAL): the thread always answers promptly, so the
// group commits it holds back are not held longer.
db.pragma('busy_timeout = 0');
db.pragma('synchronous = NORMAL');

function checkpoint(): CheckpointReport {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
    const frames = r?.log ?? 0;
    const copied = r?.checkpointed ?? 0;
    if (frames > 0 && copied === frames) restartLog();
    return { type: 'checkpoint', frames, copied };
  } catch {
    // Busy or failed: the frames stay safe in the WAL and the next request tries again.
    return { type: 'checkpoint', frames: -1, copied: -1 };
  }
}

/**
 * The smallest write there is: user_version set to its own value changes nothing but dirties the database header
 * page, and, the WAL being wholly copied, starts it over. (A reader still on the old frames makes SQLite append
 * instead; a busy or failed write leaves the restart to the next commit, as without this thread.)
 */
function restartLog(): void {
  try {
    const v = db.pragma('user_version', { simple: true }) as number;
    db.pragma(`user_version = ${v}`);
  } catch {
    // the next commit restarts the WAL
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
