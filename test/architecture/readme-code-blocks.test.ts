// README.md's code blocks are shown as typed: a Markdown link inside one renders literally, so none may hold one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('README code blocks', () => {
  it('hold no Markdown links', () => {
    const blocks = readFileSync('README.md', 'utf8')
      .split('```')
      .filter((_, i) => i % 2 === 1);
    expect(blocks.length).toBeGreaterThan(5);
    for (const b of blocks) expect(b).not.toMatch(/\[[^\]\n]+\]\([^)\s]+\)/);
  });
});
