import { describe, expect, it } from 'vitest';
import { hundredthsText, integerText } from '../../src/contracts/number-text.ts';

describe('number text', () => {
  it('hundredthsText writes what String() writes, for every hundredth up to 200 ms and a spread beyond, and any other number', () => {
    for (let h = 0; h <= 10_000_000; h += h < 20_000 ? 1 : 997) {
      const n = Math.round(h) / 100;
      expect(hundredthsText(n)).toBe(String(n));
    }
    for (const n of [
      0,
      0.01,
      0.1,
      0.05,
      1,
      1.5,
      3.2,
      3.27,
      10.1,
      99.99,
      21474836.47,
      21474836.48,
      1e7,
      0.001,
      2.345,
      1 / 3,
      Math.PI,
      1e21,
      1e-7,
      Number.MAX_SAFE_INTEGER,
      -1,
      -0.5,
      Number.NaN,
      Infinity,
    ]) {
      expect(hundredthsText(n)).toBe(String(n));
    }
    for (let i = 0; i < 20_000; i++) {
      const n = Math.round(Math.random() * 10 ** (1 + (i % 8)) * 100) / 100;
      expect(hundredthsText(n)).toBe(String(n));
    }
  });

  it('integerText writes what String() writes, around 2^30 and for epoch-ms times', () => {
    const edge = 0x3fffffff;
    for (const n of [
      0,
      7,
      edge - 1,
      edge,
      edge + 1,
      2 ** 31,
      1e9,
      1_000_000_000_000,
      1_795_721_000_001,
      1_795_721_379_129,
      1_795_720_000_000,
      Number.MAX_SAFE_INTEGER,
      Date.now(),
    ]) {
      expect(integerText(n)).toBe(String(n));
    }
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(Math.random() * 2 ** 53);
      expect(integerText(n)).toBe(String(n));
    }
  });

  it('integerText in hex writes what toString(16) writes, whatever digits are zero', () => {
    for (const n of [
      0,
      0xff,
      0x3fffffff,
      0x40000000,
      0x019ac0000abc,
      0x019ac0ffffff,
      0x019ac1000000,
      0xffffffffffff,
      1_795_721_379_129,
      Number.MAX_SAFE_INTEGER,
    ]) {
      expect(integerText(n, 16)).toBe(n.toString(16));
    }
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(Math.random() * 2 ** 53);
      expect(integerText(n, 16)).toBe(n.toString(16));
    }
  });
});
