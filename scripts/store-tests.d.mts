// Types of store-tests.mjs, for the test that checks it.
export interface StoreTestClasses {
  /** Files that use a store: run on both dialects. */
  store: string[];
  /** Files that do not: run on SQLite only. */
  independent: string[];
  /** Independent files that reach the store's code without saying why (the run fails on them). */
  unmarked: string[];
}
export function testFiles(root: string): string[];
export function classify(root: string, files?: string[]): StoreTestClasses;
