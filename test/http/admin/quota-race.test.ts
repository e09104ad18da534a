// Absolute quota edits racing top-ups, on the store of the test run (SQLite, or PostgreSQL), through two gateway
// processes on that store (this one and a `tollway serve`), so reads and writes of the two really interleave: every
// credit keeps its ledger line, and the audit log tells one serial story — each change starts from the quota the
// previous one left — that ends at the token's quota. An edit written from a stale read breaks the chain (its
// `from` is a value a top-up had already replaced: the credit vanishes from the story).
import { beforeAll, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { ADMIN_KEY, SECRET, useHarness } from '../../support/harness.ts';
import { useServeProcesses, type ServeProcess } from '../../support/serve-process.ts';
import { testDialect } from '../../support/store.ts';
import { tempDir } from '../../support/temp-dir.ts';

const t = useHarness();
const start = useServeProcesses();
const dataDir = tempDir('tollway-quota-race-');
let other: ServeProcess;

beforeAll(async () => {
  let databaseUrl = t.h.config.databaseUrl;
  if (testDialect() === 'postgres') {
    const db = new URL(process.env.TEST_DATABASE_URL!);
    db.searchParams.set('options', `-c search_path=${t.h.pgSchema!}`);
    databaseUrl = db.toString();
  }
  other = await start({
    HOME: process.env.HOME ?? dataDir,
    TOLLWAY_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    TOLLWAY_SECRET: SECRET,
    TOLLWAY_ADMIN_KEY: ADMIN_KEY,
    DASHSCOPE_BASE_URL: t.h.sim.url,
    DASHSCOPE_API_KEY: DEFAULT_SIM_KEYS.dashscopeApiKey,
  });
}, 180_000);

/** An admin call to the other process. */
const otherAdmin = (path: string, method: string, json: unknown) =>
  fetch(other.base + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });

type AuditRow = { action: string; target: string | null; detail: Record<string, unknown> | null };
interface Step {
  what: string;
  from: number;
  to: number;
}

const TOPUPS = 20;
const PATCHES = 10;
const START = 100e9;
// Top-up amounts are distinct powers of two and edits set distinct multiples of 1e9: every quota the token passes
// through is reached once, so each step's `from` names exactly one place in the story.
const amount = (i: number) => 2 ** i;
const patched = (j: number) => (j + 1) * 1e9;

it('20 top-ups interleaved with 10 absolute quota edits: one consistent serial story, every credit on the ledger', async () => {
  const tok = await t.h.token({ name: 'quota-race', quota: START });
  const calls: Array<Promise<Response>> = [];
  // Top-ups through this process, edits through the other, all at once.
  for (let i = 0; i < TOPUPS; i++) {
    calls.push(
      t.h.admin(`/admin/tokens/${tok.id}/topup`, {
        method: 'POST',
        json: { amount: amount(i), idempotency_key: `race-${i}` },
      }),
    );
    if (i % 2 === 1) calls.push(otherAdmin(`/admin/tokens/${tok.id}`, 'PATCH', { quota: patched((i - 1) / 2) }));
  }
  const answers = await Promise.all(calls);
  for (const r of answers) expect(r.status, await r.clone().text()).toBe(200);

  const audit = ((await (await t.h.admin('/admin/audit?limit=1000')).json()) as { data: AuditRow[] }).data.filter(
    (a) => a.target === tok.id,
  );
  const steps: Step[] = audit.flatMap((a): Step[] => {
    const d = a.detail ?? {};
    if (a.action === 'token.topup')
      return [
        {
          what: `topup ${String(d.amount)}`,
          from: Number(d.quota_after) - Number(d.amount),
          to: Number(d.quota_after),
        },
      ];
    if (a.action === 'token.update') {
      const q = (d.changes as { quota: { from: number; to: number } }).quota;
      return [{ what: `quota ${q.to}`, from: q.from, to: q.to }];
    }
    return [];
  });
  expect(steps).toHaveLength(TOPUPS + PATCHES);

  // Walk the story from the starting quota: at each quota exactly one change starts there.
  let quota = START;
  const left = [...steps];
  while (left.length > 0) {
    const next = left.filter((s) => s.from === quota);
    expect(
      next.map((s) => s.what),
      `the changes starting at quota ${quota}`,
    ).toHaveLength(1);
    quota = next[0]!.to;
    left.splice(left.indexOf(next[0]!), 1);
  }
  const final = (await (await t.h.admin(`/admin/tokens/${tok.id}`)).json()) as { quota: number };
  expect(final.quota).toBe(quota);

  // Each credit has its ledger line, once.
  const credits = await t.h.store.db
    .selectFrom('ledger')
    .select(['amount', 'idempotency_key'])
    .where('token_id', '=', tok.id)
    .where('kind', '=', 'credit')
    .execute();
  expect(credits.map((c) => Number(c.amount)).sort((a, b) => a - b)).toEqual(
    Array.from({ length: TOPUPS }, (_, i) => amount(i)),
  );
});
