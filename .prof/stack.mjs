import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync('/tmp/poll.cpuprofile', 'utf8'));
const nodes = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const want = process.argv.slice(2);
const agg = new Map();
for (let i = 0; i < p.samples.length; i++) {
  const n = nodes.get(p.samples[i]);
  if (!want.includes(n.callFrame.functionName)) continue;
  let chain = [];
  let id = parent.get(n.id);
  for (let k = 0; k < 7 && id; k++) { const m = nodes.get(id); chain.push(`${m.callFrame.functionName}@${m.callFrame.url.split('/').pop()}:${m.callFrame.lineNumber}`); id = parent.get(id); }
  const key = `${n.callFrame.functionName} <- ${chain.join(' <- ')}`;
  agg.set(key, (agg.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
}
for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log((v / 1000).toFixed(0).padStart(6), 'ms', k);
