// bin/tollway.mjs where the dev dependencies are absent (a production install): it never tries the TypeScript
// sources; with no current dist/ it says how to build, and with one it runs it.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess } from '../support/run-process.ts';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = tempDir('tollway-launcher-');

/** The launcher and its freshness check in an otherwise empty package: no node_modules, so no tsx. */
function bareCopy(name: string): string {
  const app = join(dir, name);
  mkdirSync(join(app, 'src'), { recursive: true });
  cpSync(join(ROOT, 'bin'), join(app, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'scripts', 'dist.mjs'), join(app, 'scripts', 'dist.mjs'));
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(ROOT, f), join(app, f));
  writeFileSync(join(app, 'src', 'cli.ts'), "console.log('from source');\n");
  return app;
}

const run = (app: string) =>
  runProcess(process.execPath, [join(app, 'bin', 'tollway.mjs'), 'serve'], { timeoutMs: 20_000 });

describe('the launcher without dev dependencies', () => {
  it('no dist/: exits 1 asking for a build, never running the sources', async () => {
    const r = await run(bareCopy('stale'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('npm run build');
    expect(r.stdout).not.toContain('from source');
  });

  it('a current dist/: runs it', async () => {
    const app = bareCopy('built');
    mkdirSync(join(app, 'dist', 'src'), { recursive: true });
    writeFileSync(join(app, 'dist', 'src', 'cli.js'), "console.log('from dist');\n");
    writeFileSync(join(app, 'dist', '.built'), 'now\n');
    const r = await run(app);
    expect(r.stdout).toContain('from dist');
    expect(r.code).toBe(0);
  });
});
