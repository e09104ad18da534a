import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { firstString } from '../../../src/adapters/dashscope/compat-chat-common.ts';

describe('firstString', () => {
  it('reads the first string value of a key, its escapes decoded', () => {
    expect(firstString('{"id":"chatcmpl-1","object":"chat.completion"}', 'id')).toBe('chatcmpl-1');
    expect(firstString('{"object":"x","id":"a\\"b\\u0063\\\\"}', 'id')).toBe('a"bc\\');
    expect(firstString('{"choices":[{"id":"inner"}],"id":"outer"}', 'id')).toBe('inner');
    expect(firstString('{"id":"ид-1"}', 'id')).toBe('ид-1');
  });

  it('is null when the key is absent, not a string, or its value never ends', () => {
    expect(firstString('{"object":"x"}', 'id')).toBeNull();
    expect(firstString('{"id":12}', 'id')).toBeNull();
    expect(firstString('{"id":"unterminated', 'id')).toBeNull();
    expect(firstString('{"id":"bad \\x escape"}', 'id')).toBeNull();
    // A raw control character is not JSON: not read as the id (as JSON.parse would refuse it).
    expect(firstString('{"id":"tab\there"}', 'id')).toBeNull();
  });

  it('does not keep the answer it was read from in memory (an id outlives its answer on the queued rows)', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const answer = (i: number) =>
      `{"id":"chatcmpl-${String(i).padStart(12, '0')}abcdef","object":"list","data":"${'0.125,'.repeat(20_000)}"}`;
    gc();
    const before = process.memoryUsage().heapUsed;
    const ids: (string | null)[] = [];
    for (let i = 0; i < 300; i++) ids.push(firstString(answer(i), 'id'));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(ids[7]).toBe('chatcmpl-000000000007abcdef');
    // 300 answers of 120 kB: a substring of each would hold 36 MB; the ids alone are a few kilobytes.
    expect(grown).toBeLessThan(8_000_000);
  });
});
