// Child processes answer {type:'stats'} over IPC with their CPU time and RSS, so the driver can
// compute CPU µs per request for exactly the process under test (all its threads), and the main
// thread's own CPU time (Linux: /proc/self/task/<pid>/stat; 0 elsewhere) — with work on other threads the two differ.
// {type:'alloc-start'} and {type:'alloc-stop'} bound a window whose allocation the answer to the second gives (alloc.ts).
import { readFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { type AllocStats, countAllocation } from './alloc.ts';

/** CPU time of the main thread in µs (utime + stime, in clock ticks of 10 ms). */
function mainThreadCpuUs(): number {
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * 10_000;
  } catch {
    return 0;
  }
}

export function answerStats(): void {
  // Full collections so far: bench:instructions counts once a target's heap has had its first one since it was ready.
  let majorGcs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
  }).observe({ entryTypes: ['gc'] });
  let peakRss = process.memoryUsage().rss;
  const t = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 200);
  t.unref();
  let stopAlloc: (() => AllocStats) | null = null;
  process.on('message', (m: unknown) => {
    const type = (m as { type?: string })?.type;
    if (type === 'alloc-start') {
      stopAlloc = countAllocation();
      process.send?.({ type });
      return;
    }
    if (type === 'alloc-stop') {
      process.send?.({ type, ...(stopAlloc?.() ?? { allocated: 0, promoted: 0, scavenges: 0, fullGcs: 0 }) });
      stopAlloc = null;
      return;
    }
    if (type !== 'stats') return;
    const cpu = process.cpuUsage();
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    process.send?.({
      type: 'stats',
      cpuUs: cpu.user + cpu.system,
      mainCpuUs: mainThreadCpuUs(),
      rss: process.memoryUsage().rss,
      peakRss,
      maxRssKb: process.resourceUsage().maxRSS,
      majorGcs,
    });
  });
  process.on('disconnect', () => process.exit(0));
}
