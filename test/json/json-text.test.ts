// store-independent: parseJson is a pure function of src/store/json.ts.
import { describe, expect, it } from 'vitest';
import { jsonText, jsonTextOnce } from '../../src/json/json-text.ts';
import { parseJson } from '../../src/store/json.ts';

// jsonText writes the small values stored with every request itself; whatever it is given, its text must be
// JSON.stringify's, byte for byte.
const same = (v: unknown) => expect(jsonText(v)).toBe(JSON.stringify(v));

class Priced {
  constructor(readonly amount: number) {}
  toJSON() {
    return { priced: this.amount };
  }
}

describe('jsonText', () => {
  it('writes the values stored per request as JSON.stringify does', () => {
    same({
      input_tokens: 20,
      output_tokens: 40,
      cached_tokens: 0,
      cache_creation_tokens: 0,
      tier_max_input_tokens: null,
    });
    same({ images: 2, requested: 3, produced: 2 });
    same({ output_seconds: 5.125, billed_seconds: 5.125, tier: '1080p', basis: 'output' });
    same([{ channel_id: 'ch_sim', outcome: 'ok', error_code: null, latency_ms: 1.23 }]);
    same([
      { channel_id: 'ch_a', outcome: 'error', error_code: 'upstream_timeout', latency_ms: 30000.5 },
      { channel_id: 'ch_b', outcome: 'ok', error_code: null, latency_ms: 0.001 },
    ]);
    same({ kind: 'tokens', cached: true, refunded: false });
    same({});
    same([]);
  });

  it('writes numbers as JSON does: negative zero, exponents, fractions', () => {
    same({ a: -0, b: 1e21, c: 1e-7, d: -12.5, e: Number.MAX_SAFE_INTEGER, f: 0.1 + 0.2 });
  });

  it('leaves out undefined members and keeps the key order, integer-like keys first', () => {
    same({ b: 1, a: undefined, c: 2 });
    same({ z: 1, 10: 'ten', 2: 'two', a: 3 });
  });

  it('gives anything it does not write itself to JSON.stringify, with the same result', () => {
    same({ a: Number.NaN, b: Number.POSITIVE_INFINITY });
    same({ s: 'quote " and backslash \\ and newline \n' });
    same({ s: 'é — non-ASCII', 'key with "quote"': 1 });
    same({ s: '\ud800 lone surrogate' });
    same({ nested: { a: 1 }, list: [1, 2] });
    same([{ a: 1 }, 2, null]);
    same([{ a: 1 }, undefined]);
    same({ when: new Date(0) });
    same(new Date(0));
    same(new Priced(5));
    same(Object.defineProperty({ a: 1 }, 'toJSON', { value: () => 'hidden toJSON', enumerable: false }));
    same({ a: 1, toJSON: () => ({ b: 2 }) });
    same(Object.assign([{ a: 1 }], { toJSON: () => 'list toJSON' }));
    same({ p: new Priced(5) });
    same(Object.assign(Object.create(null) as object, { a: 1 }));
    same('a string');
    same(42);
    same(true);
    same([1, 'two', null]);
  });

  it('escapes a key that needs it however many plain keys it has met before (the known-key set is bounded)', () => {
    for (let i = 0; i < 600; i++) same({ [`key_${i}`]: i });
    same({ 'needs "escaping"': 1, key_1: 2 });
    same({ 'tab\there': 1 });
    same({ é: 1 });
    for (let i = 0; i < 3; i++) same({ 'needs "escaping"': i });
  });

  it('skips symbol keys and inherited or non-enumerable members, as JSON.stringify does', () => {
    const o: Record<string | symbol, unknown> = { a: 1 };
    o[Symbol('s')] = 2;
    Object.defineProperty(o, 'hidden', { value: 3, enumerable: false });
    same(o);
    same(Object.assign(Object.create({ inherited: 1 }) as object, { own: 2 }));
  });

  it('skips what a polluted Object.prototype adds, and writes its own keys again once it is clean', () => {
    const usage = { input_tokens: 1, output_tokens: 2 };
    same(usage);
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 'yes';
    try {
      expect(jsonText(usage)).toBe('{"input_tokens":1,"output_tokens":2}');
      same([{ channel_id: 'ch_1', outcome: 'ok' }]);
    } finally {
      delete proto.polluted;
    }
    same(usage);
  });

  it('escapes a string value that needs it however many plain values it has met before (the known-value set is bounded)', () => {
    for (let i = 0; i < 600; i++) same({ channel_id: `ch_${i}` });
    same({ channel_id: 'ch_1', error_code: 'say "no"' });
    same([{ channel_id: 'ch_é', outcome: 'ok\n' }]);
    for (let i = 0; i < 3; i++) same({ channel_id: 'back\\slash' });
  });

  it('stores nothing for null and undefined', () => {
    expect(jsonText(null)).toBeNull();
    expect(jsonText(undefined)).toBeNull();
  });

  it('throws where JSON.stringify throws (a BigInt)', () => {
    expect(() => jsonText({ n: 1n })).toThrow(TypeError);
  });

  it('reads back what it wrote', () => {
    const usage = { input_tokens: 20, output_tokens: 40, tier_max_input_tokens: null };
    expect(parseJson(jsonText(usage))).toEqual(usage);
  });
});

describe('jsonTextOnce', () => {
  it('writes what jsonText writes, for a frozen value (kept) and for one that may still change (not kept)', () => {
    const prices = Object.freeze({ input_per_1k: 2, output_per_1k: 8, tier: 'standard' });
    expect(jsonTextOnce(prices)).toBe(JSON.stringify(prices));
    expect(jsonTextOnce(prices)).toBe(JSON.stringify(prices));
    const open: Record<string, number> = { input_per_1k: 2 };
    expect(jsonTextOnce(open)).toBe('{"input_per_1k":2}');
    open.input_per_1k = 3;
    expect(jsonTextOnce(open)).toBe('{"input_per_1k":3}');
    expect(jsonTextOnce(null)).toBeNull();
  });
});
