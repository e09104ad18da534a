// Lower the scheduling priority of the calling thread alone (Linux: setpriority on its thread id, found through
// /proc/thread-self). Background work on a thread of its own then yields the CPU to the request thread whenever
// both want it, instead of sharing it equally.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The calling thread's id, or null where /proc/thread-self does not exist (not Linux). */
export function currentThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** Set the calling thread's nice value (0 leaves it alone); the thread id it applied to, or null if it could not. */
export function niceCurrentThread(nice: number): number | null {
  const tid = currentThreadId();
  if (tid === null || nice === 0) return tid;
  try {
    setPriority(tid, nice);
    return tid;
  } catch {
    return null;
  }
}
