// `tollway bill …`: the admin API's bills (GET /admin/bills) on the store — per token, per model or per account, for
// one token or account or all, as JSON or CSV — with the same parameters and validation.
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import { qEnum, qTime } from '../contracts/query.ts';
import { accountBillCsv, accountBillDocument, accountBillLines } from '../core/admin/account-bills.ts';
import { billByModelDocument, billCsv, billDocument, billLines, billModelCsv } from '../core/admin/bills.ts';
import { onlyFlags, print, UsageError, withAdmin } from './args.ts';

const OPTIONS = {
  period: { type: 'string' },
  by: { type: 'string' },
  format: { type: 'string' },
  token: { type: 'string' },
  account: { type: 'string' },
  model: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
} as const;

export async function billCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  if (positionals.length > 0) throw new UsageError(`tollway bill takes flags only (got "${positionals[0]}")`);
  onlyFlags(values, 'bill', Object.keys(OPTIONS));
  const q = { period: values.period, by: values.by, format: values.format, since: values.since, until: values.until };
  const period = qEnum(q, 'period', ['day', 'month'] as const, 'month');
  const by = qEnum(q, 'by', ['token', 'model', 'account'] as const, 'token');
  const format = qEnum(q, 'format', ['json', 'csv'] as const, 'json');
  const filter = {
    tokenId: values.token,
    accountId: values.account,
    model: values.model,
    since: qTime(q, 'since'),
    until: qTime(q, 'until'),
  };
  return withAdmin(config, async (deps) => {
    // A one-shot command queues no charges: nothing to flush.
    const billDeps = { repos: deps.repos, meter: { flush: async () => undefined } };
    if (by === 'account') {
      const lines = await accountBillLines(billDeps, filter, period);
      if (format === 'csv') process.stdout.write(accountBillCsv(lines));
      else print(accountBillDocument(period, lines));
      return 0;
    }
    const lines = await billLines(billDeps, filter, period);
    if (format === 'csv') process.stdout.write(by === 'model' ? billModelCsv(lines) : billCsv(lines));
    else print(by === 'model' ? billByModelDocument(period, lines) : billDocument(period, lines));
    return 0;
  });
}
