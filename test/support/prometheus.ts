// The Prometheus text format as a scraper reads it: each sample line `name{label="value",…} number`, so a test can
// look series up by name and labels.
import { expect } from 'vitest';
import type { Harness } from './harness.ts';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: m[3] === '+Inf' ? Infinity : Number(m[3]) });
  }
  return out;
}

/**
 * The value of the one series `name` whose labels include `labels`; 0 when there is none (a counter not yet counted).
 */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} series ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** GET /metrics with `bearer` (the admin key by default), parsed. */
export async function scrape(h: Harness, bearer: string = h.adminKey): Promise<Sample[]> {
  const r = await h.fetch('/metrics', { token: bearer });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await r.text());
}
