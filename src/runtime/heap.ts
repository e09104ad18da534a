// Memory bound for a long-running gateway process. Under load, per-request state that happens to be alive
// during two young-generation GCs is promoted to the old generation and dies there soon after; V8's default
// heuristic lets the old generation grow to several times its live size (up to 4x) before a full GC, which
// shows as extra RSS under load. A fixed growth factor bounds it. The factor trades RSS for CPU: every full GC
// marks the whole live heap (on V8's helper threads), and streamed chat promotes the most, so a tight factor
// marks often enough to cost streams much of their CPU; the default (2x, 100 %) keeps most of the RSS bound for a
// fraction of that (measured in docs/performance.md, "Memory").
// V8 reads this flag each time it sets the next GC limit, so setting it at start-up takes effect (unlike the
// young-generation size, which only a command-line flag can change).
import v8 from 'node:v8';

let applied: number | null = null;

/** Apply `--heap-growing-percent` (0 leaves V8's heuristic alone). Idempotent; process-wide. */
export function tuneHeap(heapGrowingPercent: number): void {
  if (heapGrowingPercent <= 0 || applied === heapGrowingPercent) return;
  v8.setFlagsFromString(`--heap-growing-percent=${Math.floor(heapGrowingPercent)}`);
  applied = heapGrowingPercent;
}

/**
 * Node flags the gateway is started with (`npm start`, the `tollway` launcher's shebang, the Dockerfile, the bench):
 * a young generation of 2 × 8 MB semi-spaces instead of up to 2 × 16 MB, and fixed at that size. Per-request garbage
 * dies young either way, so the smaller young generation lowers peak RSS under load at no measurable CPU cost.
 * Fixed, because V8 otherwise shrinks it after a full GC whenever the allocation rate looks low and grows it back
 * slowly: until then every scavenge frees less and a request pays for more of them, the cost of a call depending on
 * the GC history (docs/performance.md, "Memory"). Only settable on the command line (or NODE_OPTIONS), hence a list
 * the start paths share (test/runtime/heap.test.ts checks they agree).
 */
export const NODE_HEAP_FLAGS = ['--max-semi-space-size=8', '--min-semi-space-size=8'] as const;
