// The store's worker threads start from their module name (runtime/thread-entry.ts says how).
import { threadEntry, type ThreadEntry } from '../runtime/thread-entry.ts';

export type { ThreadEntry };

/** `name`: a module of src/store without its extension (e.g. 'sqlite-writer-thread'). */
export function storeThreadEntry(name: string): ThreadEntry {
  return threadEntry(import.meta.url, name);
}
