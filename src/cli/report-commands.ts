// `tollway bill`, `tollway stats` and `tollway reconcile`: the admin API's reports (/admin/bills, /admin/stats,
// /admin/reconcile), read-only for every staff role.
import { type Command, Option } from 'commander';
import { isClean, type ReconcileReport } from '../core/reconcile.ts';
import { time } from './args.ts';
import { UsageError } from './client.ts';
import { apiCommand, type Ctx, type Opts } from './command.ts';
import { cell, fields, table } from './output.ts';

type Row = Record<string, unknown>;
const s = (o: Opts, k: string) => o[k] as string | undefined;

const BILL_COLUMNS: Record<string, string[]> = {
  token: ['token_id', 'token_name', 'period_start', 'entries', 'amount_units'],
  model: ['token_id', 'model', 'kind', 'period_start', 'entries', 'amount_units'],
  account: ['account_id', 'account_name', 'period_start', 'entries', 'amount_units'],
};

function billCommand(program: Command, ctx: Ctx): void {
  apiCommand(
    program,
    ctx,
    'bill',
    "ledger totals per token, model or account per day, week or month (the account's time zone)",
    async (r) => {
      const o = r.opts;
      const query = {
        period: s(o, 'period'),
        by: s(o, 'by'),
        token_id: s(o, 'token'),
        account_id: s(o, 'account'),
        model: s(o, 'model'),
        since: time('--since', s(o, 'since'), 'past'),
        until: time('--until', s(o, 'until'), 'past'),
      };
      if (s(o, 'format') === 'csv') {
        if (o.json) throw new UsageError('--json and --format csv exclude each other');
        const csv = await r.api.text('/bills', { ...query, format: 'csv' });
        // Byte for byte as served: the line printed gets back the final \n taken off here.
        return { value: csv, text: csv.replace(/\n$/, '') };
      }
      const v = (await r.api.call('GET', '/bills', { query: { ...query, format: s(o, 'format') } })) as Row;
      const total = (v.total ?? {}) as Row;
      const lines = table((v.data ?? []) as Row[], BILL_COLUMNS[query.by ?? 'token'] ?? BILL_COLUMNS.token!);
      return { value: v, text: `${lines}\ntotal: ${cell('amount_units', total.amount_units)} units` };
    },
  )
    .option('--period <day|week|month>', "per day, week or month, in the account's time zone (default month)")
    .option('--by <token|model|account>', 'a line per token (default), model or account')
    .option('--token <id>', 'one token')
    .option('--account <id>', 'one account')
    .option('--model <model>', 'one model')
    .option('--since <time>', 'from (ISO 8601, a span ago such as 30d, or ms)')
    .option('--until <time>', 'until (same forms)')
    .option('--format <json|csv>', 'csv: the CSV the admin API serves');
}

function statsCommand(program: Command, ctx: Ctx): void {
  apiCommand(
    program,
    ctx,
    'stats',
    'requests, errors and spend over a window; the busiest models and tokens',
    async (r) => {
      const query = { window: s(r.opts, 'window'), group_by: s(r.opts, 'groupBy') };
      const v = (await r.api.call('GET', '/stats', { query })) as Row;
      const totals = (v.totals ?? {}) as Row;
      const figures = ['requests', 'errors', 'spend'];
      const parts = [
        `window: ${cell('window', v.window)}  requests: ${totals.requests}  errors: ${totals.errors}  spend: ${totals.spend}`,
        `busiest models:\n${table((v.top_models ?? []) as Row[], ['model', ...figures])}`,
        `busiest tokens:\n${table((v.top_tokens ?? []) as Row[], ['token_id', 'name', ...figures])}`,
      ];
      if (Array.isArray(v.top_accounts))
        parts.push(`busiest accounts:\n${table(v.top_accounts as Row[], ['account_id', 'name', ...figures])}`);
      return { value: v, text: parts.join('\n\n') };
    },
  )
    .option('--window <1h|24h|30d>', 'the window (default 24h)')
    .option('--group-by <token|account>', 'account: the busiest accounts too');
}

function reconcileCommand(program: Command, ctx: Ctx): void {
  apiCommand(
    program,
    ctx,
    'reconcile',
    'the ledger against the stored upstream usage; exit 1 if anything needs a look',
    async (r) => {
      const o = r.opts;
      const since = s(o, 'since') ?? s(o, 'from');
      const until = s(o, 'until') ?? s(o, 'to');
      const query = { since: time('--since', since, 'past'), until: time('--until', until, 'past') };
      const v = (await r.api.call('GET', '/reconcile', { query })) as ReconcileReport;
      const row = v as unknown as Row;
      const lists = Object.entries(row).filter(([k, x]) => Array.isArray(x) && k !== 'groups');
      const text = [
        fields(row, ['since', 'until', 'difference']),
        ...lists.map(([k, x]) => `${k}: ${(x as unknown[]).length}`),
        ...(v.mismatches.length
          ? [table(v.mismatches as unknown as Row[], ['key', 'model', 'ledger_amount', 'reported_amount', 'reason'])]
          : []),
        isClean(v) ? 'clean' : 'needs a look',
      ];
      return { value: v, text: text.join('\n'), exit: isClean(v) ? 0 : 1 };
    },
  )
    .option('--since <time>', 'from (ISO 8601, a span ago such as 24h, or ms; default 24 h ago)')
    .option('--until <time>', 'until (same forms; default now)')
    // The names before --since/--until, kept for one release.
    .addOption(new Option('--from <time>', 'deprecated: --since').hideHelp())
    .addOption(new Option('--to <time>', 'deprecated: --until').hideHelp());
}

export function reportCommands(program: Command, ctx: Ctx): void {
  billCommand(program, ctx);
  statsCommand(program, ctx);
  reconcileCommand(program, ctx);
}
