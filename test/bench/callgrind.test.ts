import { describe, expect, it } from 'vitest';
import { countsFrom } from '../../bench/callgrind.ts';

// Shapes of callgrind's per-thread dump files (--separate-threads=yes): a header naming the thread, then totals, then
// the functions (each name written once, at its first mention, as `fn=` or `cfn=`).
const dump = (
  thread: number,
  total: number,
  fns: string[] = ['main'],
  key: 'summary' | 'totals' = 'summary',
  part = 1,
) =>
  `version: 1\ncreator: callgrind-3.19.0\npid: 42\ncmd:  /usr/bin/node x.js\npart: ${part}\nthread: ${thread}\n\nevents: Ir\n${key}: ${total}\n\n` +
  fns.map((f, i) => `fn=(${i + 1}) ${f}\n1 ${i === 0 ? total : 0}\n`).join('');

const V8 = ['node::(anonymous namespace)::PlatformWorkerThread(void*)', 'v8::platform::DefaultJobWorker::Run()'];
const LOOP = ['uv_run', 'uv__run_timers'];

describe('countsFrom', () => {
  it('takes thread 1 as the main thread and sums every thread, per request', () => {
    const c = countsFrom([dump(3, 30_000, V8), dump(1, 300_000, ['main', ...LOOP]), dump(12, 6_000, LOOP)], 100);
    expect(c).toEqual({ main: 3_000, v8: 300, workers: 60, all: 3_360 });
  });

  it("tells V8's threads, worker threads with an event loop and the rest (libuv's pool) apart", () => {
    const c = countsFrom(
      [
        dump(1, 1_000),
        dump(4, 400, V8),
        dump(5, 500, V8),
        dump(9, 90, ['__futex_abstimed_wait_common', 'uv__fs_work']),
        dump(13, 130, ['worker', 'uv__run_timers']),
      ],
      10,
    );
    expect(c).toEqual({ main: 100, v8: 90, workers: 13, all: 212 });
  });

  it('reads a dump that carries totals instead of a summary, and a thread whose number merely starts with 1', () => {
    const c = countsFrom([dump(1, 1_000, ['main'], 'totals'), dump(11, 500)], 10);
    expect(c).toEqual({ main: 100, v8: 0, workers: 0, all: 150 });
  });

  it('counts the dump asked for: the counted window is part 1, the idle window after it part 2', () => {
    const dumps = [
      dump(1, 1_000),
      dump(4, 400, V8),
      dump(1, 50, ['main'], 'summary', 2),
      dump(4, 70, V8, 'summary', 2),
    ];
    expect(countsFrom(dumps, 10)).toEqual({ main: 100, v8: 40, workers: 0, all: 140 });
    expect(countsFrom(dumps, 10, 2)).toEqual({ main: 5, v8: 7, workers: 0, all: 12 });
    expect(countsFrom(dumps, 10, 12)).toEqual({ main: 0, v8: 0, workers: 0, all: 0 });
  });
});
