import { describe, expect, it, vi } from 'vitest';
import { newRequestId } from '../../src/http/request-id.ts';

describe('newRequestId', () => {
  it('makes ids of req_, 12 hex digits of the time in ms and 20 random hex digits, unique across pool refills', () => {
    const before = Date.now();
    // Several times the 512 ids one random pool holds: every refill must still give full, fresh ids.
    const ids = Array.from({ length: 5000 }, () => newRequestId());
    const after = Date.now();
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(16))).size).toBe(ids.length);
    const times = ids.map((id) => parseInt(id.slice(4, 16), 16));
    for (const t of times) {
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThanOrEqual(after);
    }
    // Made in time order: the ledger's and the request log's keys grow at the right edge of their B-trees.
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('spreads the random part over every hex digit', () => {
    const digits = new Set(Array.from({ length: 600 }, () => newRequestId().slice(16)).join(''));
    expect(digits.size).toBe(16);
  });

  it('writes the time as its 12 hex digits whatever digits are zero', () => {
    const times = [0x019ac0000abc, 0x019ac0ffffff, 0x019ac1000000, 0x0000000000ff, 0xffffffffffff, 1795721379129];
    const spy = vi.spyOn(Date, 'now');
    try {
      for (const t of times) {
        spy.mockReturnValue(t);
        expect(newRequestId().slice(4, 16)).toBe(t.toString(16).padStart(12, '0'));
      }
    } finally {
      spy.mockRestore();
    }
  });
});
