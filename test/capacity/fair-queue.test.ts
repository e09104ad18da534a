import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/capacity/fair-queue.ts';

const w = (tenant: string, n: number, weight = 1) => ({ tenant, weight, n });

function drain(q: FairQueue<ReturnType<typeof w>>): string[] {
  const out: string[] = [];
  for (let x = q.shift(); x !== undefined; x = q.shift()) out.push(x.tenant);
  return out;
}

describe('fair queue', () => {
  it('takes turns across tenants whatever the order they queued in', () => {
    const q = new FairQueue<ReturnType<typeof w>>();
    for (let i = 0; i < 5; i++) q.push(w('noisy', i));
    q.push(w('quiet', 0));
    const order = drain(q);
    // The quiet tenant's one call goes second, not after the noisy tenant's five.
    expect(order.indexOf('quiet')).toBe(1);
    expect(order).toHaveLength(6);
  });

  it('a tenant that starts waiting while another is served goes at the next turn', () => {
    const q = new FairQueue<ReturnType<typeof w>>();
    for (let i = 0; i < 5; i++) q.push(w('noisy', i));
    for (let i = 0; i < 2; i++) expect(q.shift()?.tenant).toBe('noisy');
    // The gate looks whose turn is next before the bucket has room again.
    expect(q.peek()?.tenant).toBe('noisy');
    q.push(w('quiet', 0));
    q.push(w('calm', 0));
    // Before the backlogged tenant's next turn, in the order they came.
    expect(drain(q)).toEqual(['quiet', 'calm', 'noisy', 'noisy', 'noisy']);
  });

  it('gives a tenant of weight 2 two turns for one', () => {
    const q = new FairQueue<ReturnType<typeof w>>();
    for (let i = 0; i < 6; i++) q.push(w('a', i, 2));
    for (let i = 0; i < 6; i++) q.push(w('b', i, 1));
    const first9 = drain(q).slice(0, 9);
    expect(first9.filter((t) => t === 'a')).toHaveLength(6);
    expect(first9.filter((t) => t === 'b')).toHaveLength(3);
  });

  it('a tenant alone takes every turn, in its order', () => {
    const q = new FairQueue<ReturnType<typeof w>>();
    for (let i = 0; i < 3; i++) q.push(w('a', i));
    const got: number[] = [];
    for (let x = q.shift(); x !== undefined; x = q.shift()) got.push(x.n);
    expect(got).toEqual([0, 1, 2]);
  });

  it('a waiter removed before its turn is never served, and the others keep their turns', () => {
    const q = new FairQueue<ReturnType<typeof w>>();
    const gone = w('b', 0);
    q.push(w('a', 0));
    q.push(gone);
    q.push(w('c', 0));
    expect(q.remove(gone)).toBe(true);
    expect(q.remove(gone)).toBe(false);
    expect(drain(q)).toEqual(['a', 'c']);
    expect(q.size).toBe(0);
  });

  it('fractional weights still get turns', () => {
    const q = new FairQueue<ReturnType<typeof w>>();
    for (let i = 0; i < 4; i++) q.push(w('a', i, 0.5));
    for (let i = 0; i < 4; i++) q.push(w('b', i, 1));
    const order = drain(q);
    expect(order.slice(0, 3).filter((t) => t === 'b')).toHaveLength(2);
    expect(order).toHaveLength(8);
  });
});
