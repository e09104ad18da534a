// Which test files the PostgreSQL pass of `npm test` runs (scripts/store-tests.mjs): every file that opens a store,
// however indirectly, and none that does not; a file that reaches the store's code any other way is reported.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, testFiles } from '../../scripts/store-tests.mjs';
import { tempDir } from '../support/temp-dir.ts';

const scratch = tempDir('store-tests-');
let trees = 0;

function tree(files: Record<string, string>): string {
  const root = join(scratch, String(++trees));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

describe('store test files', () => {
  it('a file that reaches the store support by any chain of imports, or names the dialect variables, uses a store', () => {
    const root = tree({
      'test/support/store.ts': 'export const freshStore = 1;\n',
      'test/support/harness.ts': "import { freshStore } from './store.ts';\n",
      'test/support/two.ts': "export { x } from './harness.ts';\n",
      'test/a/direct.test.ts': "import { freshStore } from '../support/store.ts';\n",
      'test/a/harness.test.ts': "import {\n  useHarness,\n} from '../support/harness.ts';\n",
      'test/a/chain.test.ts': "import { x } from '../support/two.ts';\n",
      'test/a/dynamic.test.ts': "const h = await import('../support/harness.ts');\n",
      'test/a/env.test.ts': 'const url = process.env.TEST_DATABASE_URL;\n',
      'test/a/pure.test.ts': "import { f } from '../../src/json/json-text.ts';\n",
      'test/deploy/stack/stack.test.ts': "import { freshStore } from '../../support/store.ts';\n",
    });
    const c = classify(root);
    expect(c.store).toEqual([
      'test/a/chain.test.ts',
      'test/a/direct.test.ts',
      'test/a/dynamic.test.ts',
      'test/a/env.test.ts',
      'test/a/harness.test.ts',
    ]);
    expect(c.independent).toEqual(['test/a/pure.test.ts']);
    expect(c.unmarked).toEqual([]);
  });

  it('a file that reaches the store code (or what opens a store) without the store support is reported unless it says why not', () => {
    const root = tree({
      'test/support/store.ts': '',
      'test/support/own-store.ts': "import { openStore } from '../../src/store/store.ts';\n",
      'test/b/own.test.ts': "import { s } from '../support/own-store.ts';\n",
      'test/b/gateway.test.ts': "import { startGateway } from '../../src/process-life.ts';\n",
      'test/b/marked.test.ts':
        "// store-independent: a pure helper.\nimport { parseJson } from '../../src/store/json.ts';\n",
    });
    const c = classify(root);
    expect(c.store).toEqual([]);
    expect(c.unmarked).toEqual(['test/b/gateway.test.ts', 'test/b/own.test.ts']);
    expect(c.independent).toContain('test/b/marked.test.ts');
  });

  it('in this repository no test file reaches the store unseen, and the PostgreSQL pass leaves out only files that do not', () => {
    const root = join(import.meta.dirname, '../..');
    const c = classify(root);
    expect(c.unmarked).toEqual([]);
    expect([...c.store, ...c.independent].sort()).toEqual(testFiles(root));
    expect(c.store).toContain('test/http/json-body.test.ts');
    expect(c.independent).toContain('test/json/json-size.test.ts');
  });
});
