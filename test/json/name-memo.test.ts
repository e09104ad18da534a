import { describe, expect, it } from 'vitest';
import { nameMemo, pairMemo, quotedName } from '../../src/json/name-memo.ts';

describe('name memos', () => {
  it('quotedName is JSON.stringify of the name, whatever it holds', () => {
    for (const n of ['qwx3.7-plus', 'a"b', 'back\\slash', 'tab\there', 'ключ', '\u2028', ''])
      expect(quotedName(n)).toBe(JSON.stringify(n));
  });

  it('makes each name once, and again after the bound empties it', () => {
    let made = 0;
    const m = nameMemo((n) => {
      made++;
      return `<${n}>`;
    });
    expect([m('a'), m('b'), m('a')]).toEqual(['<a>', '<b>', '<a>']);
    expect(made).toBe(2);
    for (let i = 0; i < 1000; i++) m(`n${i}`);
    expect(m('a')).toBe('<a>');
    expect(made).toBe(2 + 1000 + 1);
  });

  it('keeps a value per pair, not per first name', () => {
    const p = pairMemo((a, b) => `${a}->${b}`);
    expect([p('up', 'x'), p('up', 'y'), p('other', 'x'), p('up', 'x')]).toEqual([
      'up->x',
      'up->y',
      'other->x',
      'up->x',
    ]);
  });
});
