// What the main isolate allocates over a window, read from V8's GC profiler (node:v8 GCProfiler): the heap's used
// size before each collection against its size after the previous one. No --trace-gc output to parse, and nothing
// runs per allocation: the profiler only reads the heap's statistics at each collection.
import v8 from 'node:v8';

export interface AllocStats {
  /** Bytes allocated on the main isolate's heap (every space) over the window. */
  allocated: number;
  /** Bytes the scavenges moved to the old generation. */
  promoted: number;
  scavenges: number;
  /** Mark-compacts (full collections), incremental marking included. */
  fullGcs: number;
}

interface SpaceStats {
  spaceName: string;
  spaceUsedSize: number;
}
interface HeapSide {
  heapStatistics: { usedHeapSize: number };
  heapSpaceStatistics: SpaceStats[];
}
interface GcEntry {
  gcType: string;
  beforeGC: HeapSide;
  afterGC: HeapSide;
}

const OLD = new Set(['old_space', 'large_object_space']);
const oldUsed = (s: HeapSide) =>
  s.heapSpaceStatistics.reduce((n, x) => (OLD.has(x.spaceName) ? n + x.spaceUsedSize : n), 0);

/** Start counting; the returned function stops and gives the window's figures. */
export function countAllocation(): () => AllocStats {
  const profiler = new v8.GCProfiler();
  const startUsed = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  return () => {
    const endUsed = v8.getHeapStatistics().used_heap_size;
    const entries = (profiler.stop()?.statistics ?? []) as GcEntry[];
    const s: AllocStats = { allocated: 0, promoted: 0, scavenges: 0, fullGcs: 0 };
    let after = startUsed;
    for (const e of entries) {
      s.allocated += Math.max(0, e.beforeGC.heapStatistics.usedHeapSize - after);
      after = e.afterGC.heapStatistics.usedHeapSize;
      if (e.gcType === 'Scavenge') {
        s.scavenges++;
        s.promoted += Math.max(0, oldUsed(e.afterGC) - oldUsed(e.beforeGC));
      } else if (e.gcType === 'MarkSweepCompact') s.fullGcs++;
    }
    s.allocated += Math.max(0, endUsed - after);
    return s;
  };
}
