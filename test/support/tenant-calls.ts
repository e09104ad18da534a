// Calls a tenant isolation test makes with a client token, answered as text (and JSON when it parses), and the upstream
// calls made since a time.
import type { Harness } from './harness.ts';

/** The calls, on the gateway `t` holds (read when called: it starts before the tests). */
export function tenantCalls(t: { readonly h: Harness }) {
  async function get(path: string, token: string) {
    const r = await t.h.fetch(path, { token });
    return { status: r.status, text: await r.text() };
  }
  async function post(path: string, token: string, json: unknown) {
    const r = await t.h.fetch(path, { method: 'POST', token, json });
    const text = await r.text();
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = null;
    }
    return { status: r.status, text, json: parsed };
  }
  /** The upstream calls that could carry a model since `since`: earlier tests' tasks may still be polled (GETs). */
  const callsSince = (since: number) =>
    t.h.sim.recorded.filter((x) => x.at >= since && x.method !== 'GET').map((x) => `${x.method} ${x.path}`);
  return { get, post, callsSince };
}
