import { describe, expect, it } from 'vitest';
import { countsFrom } from '../../bench/instructions.ts';

// Shapes of callgrind's per-thread dump files (--separate-threads=yes): a header naming the thread, then totals.
const dump = (thread: number, total: number, key: 'summary' | 'totals' = 'summary') =>
  `version: 1\ncreator: callgrind-3.19.0\npid: 42\ncmd:  /usr/bin/node x.js\npart: 1\nthread: ${thread}\n\nevents: Ir\n${key}: ${total}\n\nfn=(1) main\n1 ${total}\n`;

describe('countsFrom', () => {
  it('takes thread 1 as the main thread and sums every thread, per request', () => {
    const c = countsFrom([dump(3, 30_000), dump(1, 300_000), dump(12, 6_000)], 100);
    expect(c).toEqual({ main: 3_000, all: 3_360 });
  });

  it('reads a dump that carries totals instead of a summary, and a thread whose number merely starts with 1', () => {
    const c = countsFrom([dump(1, 1_000, 'totals'), dump(11, 500)], 10);
    expect(c).toEqual({ main: 100, all: 150 });
  });
});
