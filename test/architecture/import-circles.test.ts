// No two modules import each other, directly or round a longer circle (type-only imports count): in the gateway, the
// simulator and the console. scripts/import-circles.mjs names the files of any circle.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('import circles', () => {
  for (const dir of ['src', 'simulator', 'console/src'])
    it(`${dir} has none`, () => {
      const r = spawnSync(process.execPath, ['scripts/import-circles.mjs', dir], { encoding: 'utf8' });
      expect(r.stdout).toContain('0 import circle(s)');
      expect(r.status).toBe(0);
    });
});
