// `tollway stats …` as an operator runs it (bin/tollway.mjs → tsx), on the suite's dialect: the overview figures of
// GET /admin/stats from request-log rows written at known times, per token and grouped by account, with the same
// validation.
import { beforeAll, describe, expect, it } from 'vitest';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { tollway as run } from '../support/cli.ts';
import { useHarness } from '../support/harness.ts';
import { chatLogRow, insertChatRows } from '../support/store-rows.ts';

const ctx = useHarness({ channels: false });
const tollway = (args: string[]) => run(ctx.h, args);
const MIN = 60_000;

interface Figures {
  requests: number;
  errors: number;
  spend: number;
}
interface Stats {
  window: string;
  bucket_ms: number;
  series: { t: number[]; requests: number[] };
  totals: Figures;
  top_models: Array<Figures & { model: string | null }>;
  top_tokens: Array<Figures & { token_id: string | null; name: string | null }>;
  top_accounts?: Array<Figures & { account_id: string | null; name: string | null }>;
}

let n = 0;
const row = (token: string, status: number, amount: number, createdAt: number) =>
  chatLogRow(`req_cli_stats_${n++}`, token, 'qwx3.7-plus', status, amount, createdAt);

beforeAll(async () => {
  await new AccountsRepo(ctx.h.store.db).create({
    id: 'acc_stats',
    name: 'Acme',
    quota: null,
    budgets: [],
    priceGroup: null,
    timeZone: null,
    expiresAt: null,
  });
  const tokens = new TokensRepo(ctx.h.store.db);
  const token = (id: string, accountId: string | null) =>
    tokens.create({
      id,
      name: `name-${id}`,
      secretHash: `h_${id}`,
      prefix: 'tw-test',
      models: null,
      quota: null,
      expiresAt: null,
      accountId,
    });
  await token('tok_web', 'acc_stats');
  await token('tok_app', 'acc_stats');
  await token('tok_loose', null);
  const now = Date.now();
  await insertChatRows(ctx.h.store.db, [
    row('tok_web', 200, 100, now - 5 * MIN),
    row('tok_web', 502, 0, now - 5 * MIN),
    row('tok_app', 200, 250, now - 20 * MIN),
    row('tok_loose', 200, 40, now - 10 * MIN),
    row('tok_loose', 200, 7, now - 3 * 60 * MIN), // outside the hour, inside the day
  ]);
});

async function stats(args: string[]): Promise<Stats> {
  const r = await tollway(['stats', ...args, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Stats;
}

describe('tollway stats', { timeout: 240_000 }, () => {
  it('the last hour grouped by account: the tokens of an account counted together, tokens of no account apart', async () => {
    const s = await stats(['--window', '1h', '--group-by', 'account']);
    expect([s.window, s.bucket_ms, s.series.t.length]).toEqual(['1h', MIN, 60]);
    expect(s.totals).toEqual({ requests: 4, errors: 1, spend: 390 });
    expect(s.top_accounts).toEqual([
      { account_id: 'acc_stats', name: 'Acme', requests: 3, errors: 1, spend: 350 },
      { account_id: null, name: null, requests: 1, errors: 0, spend: 40 },
    ]);
    expect(s.top_tokens.map((t) => [t.token_id, t.name, t.requests, t.spend])).toEqual([
      ['tok_web', 'name-tok_web', 2, 100],
      ['tok_app', 'name-tok_app', 1, 250],
      ['tok_loose', 'name-tok_loose', 1, 40],
    ]);
    // Without --json: the same figures as lines and tables.
    const text = await tollway(['stats', '--window', '1h', '--group-by', 'account']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^window: 1h {2}requests: 4 {2}errors: 1 {2}spend: 390\n/);
    expect(text.stdout).toMatch(
      /busiest accounts:\naccount_id\s+name\s+requests\s+errors\s+spend\nacc_stats\s+Acme\s+3\s+1\s+350\n/,
    );
  });

  it('by default the last day per token, without accounts', async () => {
    const s = await stats([]);
    expect([s.window, s.bucket_ms, s.series.t.length]).toEqual(['24h', 15 * MIN, 96]);
    expect(s.totals).toEqual({ requests: 5, errors: 1, spend: 397 });
    expect(s.top_models).toEqual([{ model: 'qwx3.7-plus', requests: 5, errors: 1, spend: 397 }]);
    expect(s).not.toHaveProperty('top_accounts');
  });

  it("refuses a bad window, grouping or flag in one line with the admin API's words", async () => {
    const window = await tollway(['stats', '--window', '7d']);
    expect([window.code, window.stdout]).toEqual([1, '']);
    expect(window.stderr.trim()).toMatch(
      /^tollway: window must be one of 1h, 24h, 30d \(HTTP 400 \w+, request req_\w+\)$/,
    );
    const group = await tollway(['stats', '--group-by', 'model']);
    expect(group.code).toBe(1);
    expect(group.stderr).toMatch(/^tollway: group_by must be one of token, account \(HTTP 400/);
    // A flag the command does not take is the command line's mistake: exit 2, named.
    const flag = await tollway(['stats', '--since', '2026-01-01']);
    expect([flag.code, flag.stderr]).toEqual([2, "tollway: unknown option '--since'\n"]);
  });
});
