// One word per thing (docs/api.md#words-and-formats): a balance and a budget say spent/held/remaining, a count of
// ledger lines is `entries`, the reconciliation takes since/until; the former names are still sent (or accepted)
// for one release and marked deprecated in the OpenAPI document. On the store of the test run.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';

const t = useHarness();
const CHAT = 'qwx3.7-plus';
type Obj = Record<string, unknown>;

async function json<T>(r: Response): Promise<T> {
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}
const post = async <T>(path: string, body: unknown): Promise<T> =>
  (await t.h.admin(path, { method: 'POST', json: body })).json() as Promise<T>;

const MONEY_WORDS = ['spent', 'held', 'remaining'];

let usage: Obj = {};

beforeAll(async () => {
  const budgets = [{ period: 'day', limit: 50_000_000 }];
  const acc = await post<{ id: string }>('/admin/accounts', { name: 'Words', quota: 90_000_000, budgets });
  const tok = await post<{ id: string; token: string }>('/admin/tokens', {
    name: 'words',
    quota: 80_000_000,
    account_id: acc.id,
    budgets,
  });
  await openaiClient(t.h, tok.token).chat.completions.create({
    model: CHAT,
    messages: [{ role: 'user', content: 'hi' }],
  });
  usage = await json<Obj>(await t.h.fetch('/v1/usage', { token: tok.token }));
});

describe('GET /v1/usage says one word for one thing', () => {
  it("the balance (the token's and its account's) and every budget use the same words: spent, held, remaining", () => {
    const account = usage.account as Obj;
    const holders = [usage.balance, account.balance, ...(usage.budgets as Obj[]), ...(account.budgets as Obj[])];
    expect(holders).toHaveLength(4);
    for (const h of holders as Obj[]) expect(Object.keys(h)).toEqual(expect.arrayContaining(MONEY_WORDS));
    const balance = usage.balance as Obj;
    expect(balance.spent).toBeGreaterThan(0);
    // The budget of the day holds the same charge as the balance.
    expect((usage.budgets as Obj[])[0]!.spent).toBe(balance.spent);
  });

  it('still sends the former names, equal to the new ones, for one release', () => {
    for (const b of [usage.balance, (usage.account as Obj).balance] as Obj[]) {
      expect(b.used).toBe(b.spent);
      expect(b.reserved).toBe(b.held);
    }
    const u = usage.usage as { data: Obj[]; total: Obj };
    expect(u.data).toEqual([expect.objectContaining({ model: CHAT, entries: 1, requests: 1 })]);
    expect(u.total).toMatchObject({ entries: 1, requests: 1 });
  });
});

describe('GET /admin/reconcile takes since/until like every other report', () => {
  const since = '2026-01-01T00:00:00Z';
  const until = String(Date.parse('2030-01-01T00:00:00Z'));

  it('answers the same with since/until and with the deprecated from/to', async () => {
    const now = await json<Obj>(await t.h.admin(`/admin/reconcile?since=${since}&until=${until}`));
    const old = await json<Obj>(await t.h.admin(`/admin/reconcile?from=${since}&to=${until}`));
    expect(old).toEqual(now);
    expect(now).toMatchObject({ since: Date.parse(since), until: Number(until), from: Date.parse(since) });
    const groups = now.groups as Obj[];
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) expect(g.charges).toBe(g.entries);
  });

  it('refuses a bound given under both names', async () => {
    const r = await expectB(await t.h.admin(`/admin/reconcile?since=${since}&from=${since}`), 400, 'invalid_parameter');
    expect(r.error.param).toBe('from');
  });
});

describe('the OpenAPI document marks the former names deprecated', () => {
  it('used, reserved and requests on the usage answer; from and to on the reconciliation', async () => {
    type Schema = { properties?: Record<string, Schema & { deprecated?: boolean }>; items?: Schema };
    type Doc = { paths: Record<string, { get: { parameters?: Obj[]; responses: Obj } }> };
    const doc = await json<Doc>(await t.h.fetch('/openapi.json'));
    const schemaOf = (path: string) =>
      (doc.paths[path]!.get.responses['200'] as { content: { 'application/json': { schema: Schema } } }).content[
        'application/json'
      ].schema;
    const usageDoc = schemaOf('/v1/usage');
    const balance = usageDoc.properties!.balance!.properties!;
    expect([balance.used!.deprecated, balance.reserved!.deprecated, balance.spent!.deprecated]).toEqual([
      true,
      true,
      undefined,
    ]);
    expect(usageDoc.properties!.usage!.properties!.total!.properties!.requests!.deprecated).toBe(true);
    const params = doc.paths['/admin/reconcile']!.get.parameters!;
    expect(params.filter((p) => p.deprecated).map((p) => p.name)).toEqual(['from', 'to']);
  });
});
