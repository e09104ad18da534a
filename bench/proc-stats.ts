// Child processes answer {type:'stats'} over IPC with their CPU time and RSS, so the driver can
// compute CPU µs per request for exactly the process under test.
export function answerStats(): void {
  let peakRss = process.memoryUsage().rss;
  const t = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 200);
  t.unref();
  process.on('message', (m: unknown) => {
    if ((m as { type?: string })?.type !== 'stats') return;
    const cpu = process.cpuUsage();
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    process.send?.({ type: 'stats', cpuUs: cpu.user + cpu.system, rss: process.memoryUsage().rss, peakRss, maxRssKb: process.resourceUsage().maxRSS });
  });
  process.on('disconnect', () => process.exit(0));
}
