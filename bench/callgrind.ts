// What callgrind's per-thread dumps say: instructions per request on the main thread, V8's threads, worker threads and
// all of them (bench:instructions, bench/instructions.ts).
import { execFileSync } from 'node:child_process';

export interface ThreadCounts {
  /** Instructions per request on the main thread (the event loop). */
  main: number;
  /** On V8's platform threads: concurrent and parallel GC, background compilation. */
  v8: number;
  /** On worker threads with an event loop of their own (the task poller, the SQLite threads): clock-driven work. */
  workers: number;
  /** Instructions per request on every thread together. */
  all: number;
}

/**
 * Per-request counts from callgrind's per-thread dump files (`--separate-threads=yes`): the main thread is thread 1;
 * a dump that names node's PlatformWorkerThread is one of V8's threads; another one that runs libuv's timers is a
 * worker thread's event loop. What is left (libuv's thread pool) counts in `all` only. `part`: which dump.
 */
export function countsFrom(dumps: string[], requests: number, part = 1): ThreadCounts {
  const sum = { main: 0, v8: 0, workers: 0, all: 0 };
  // Each `callgrind_control --dump` writes one part per thread: `part: 1` is the first dump.
  for (const text of dumps.filter((d) => new RegExp(`^part: ${part}$`, 'm').test(d))) {
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1] ?? 0);
    sum.all += total;
    if (/^thread: 1$/m.test(text)) sum.main += total;
    else if (text.includes('PlatformWorkerThread')) sum.v8 += total;
    else if (/ uv__run_timers$/m.test(text)) sum.workers += total;
  }
  const per = (n: number) => Math.round(n / requests);
  return { main: per(sum.main), v8: per(sum.v8), workers: per(sum.workers), all: per(sum.all) };
}

export function valgrindPresent(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
