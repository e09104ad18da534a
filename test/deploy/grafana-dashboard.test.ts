// deploy/grafana-dashboard.json: valid JSON Grafana imports (a Prometheus data source input, panels with queries),
// and every series its queries name is one the gateway documents in docs/operations.md#metrics, the money series
// included.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dashboard = JSON.parse(readFileSync('deploy/grafana-dashboard.json', 'utf8')) as {
  __inputs: Array<{ name: string; pluginId: string }>;
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};
const ops = readFileSync('docs/operations.md', 'utf8');

describe('the Grafana dashboard', () => {
  it('queries only documented series, the money ones among them', () => {
    expect(dashboard.__inputs.map((i) => i.pluginId)).toEqual(['prometheus']);
    const names = new Set<string>();
    for (const p of dashboard.panels) {
      expect(p.targets.length).toBeGreaterThan(0);
      for (const t of p.targets)
        for (const m of t.expr.matchAll(/\b(tollway_[a-z_]+?)(?:_bucket)?\b/g)) names.add(m[1]!);
    }
    for (const n of names) expect(ops, n).toContain(`| \`${n}\` |`);
    for (const n of ['tollway_spend_units_total', 'tollway_tokens_total', 'tollway_account_remaining_units'])
      expect(names).toContain(n);
  });
});
