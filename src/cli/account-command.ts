// `tollway account …` and `tollway price-group …`: /admin/accounts and /admin/price-groups through the admin API.
import type { Command } from 'commander';
import { budgetFlags, defined, num, orNone, time } from './args.ts';
import { UsageError } from './client.ts';
import { apiCommand, collect, type Ctx, type Opts } from './command.ts';
import { fields, type Page, pageText } from './output.ts';
import { paged, pageArgs } from './token-command.ts';
import { usageText } from './usage-text.ts';

type Row = Record<string, unknown>;
const s = (o: Opts, k: string) => o[k] as string | undefined;
const enc = encodeURIComponent;

function accountFields(o: Opts, edit: boolean) {
  const text = (k: string) => (edit ? orNone(s(o, k), (v) => v) : s(o, k));
  return defined({
    name: s(o, 'name'),
    quota: edit ? orNone(s(o, 'quota'), (v) => num('--quota', v)) : num('--quota', s(o, 'quota')),
    budgets: budgetFlags(o.budget as string[] | undefined),
    price_group: text('priceGroup'),
    time_zone: text('timeZone'),
    expires_at: edit
      ? orNone(s(o, 'expiresAt'), (v) => time('--expires-at', v, 'future'))
      : time('--expires-at', s(o, 'expiresAt'), 'future'),
    weight: num('--weight', s(o, 'weight')),
  });
}

const accountOptions = (cmd: Command, edit: boolean): Command => {
  const none = edit ? '|none' : '';
  return cmd
    .option(`--quota <micro${none}>`, 'its balance in micro-units (default unlimited)')
    .option(
      `--budget <period=micro${none}>`,
      'a day, week or month budget, calendar in its time zone (repeatable)',
      collect,
    )
    .option(`--price-group <name${none}>`, 'its price group')
    .option(`--time-zone <tz${none}>`, 'an IANA time zone for its budget periods (default UTC)')
    .option(`--expires-at <time${none}>`, 'ISO 8601, a span from now (30d), or ms')
    .option('--weight <n>', 'its share when capacity is short');
};

export function accountCommands(program: Command, ctx: Ctx): void {
  const account = program.command('account').description('customer accounts (/admin/accounts)');
  accountOptions(
    apiCommand(account, ctx, 'create', 'a customer account', async ({ api, opts }) => {
      const v = (await api.call('POST', '/accounts', { body: accountFields(opts, false) })) as Row;
      return { value: v, text: fields(v) };
    }).requiredOption('--name <name>', 'its name'),
    false,
  );
  paged(
    apiCommand(account, ctx, 'list', 'accounts, a page at a time', async ({ api, opts }) => {
      const v = (await api.call('GET', '/accounts', { query: pageArgs(opts) })) as Page;
      return {
        value: v,
        text: pageText(v, ['id', 'name', 'quota', 'spent', 'remaining', 'price_group', 'revoked_at']),
      };
    }),
  );
  apiCommand(account, ctx, 'show <id>', 'one account', async ({ api, args }) => {
    const v = (await api.call('GET', `/accounts/${enc(args[0]!)}`)) as Row;
    return { value: v, text: fields(v) };
  });
  accountOptions(
    apiCommand(
      account,
      ctx,
      'update <id>',
      "change an account's fields (none removes one)",
      async ({ api, args, opts }) => {
        const v = (await api.call('PATCH', `/accounts/${enc(args[0]!)}`, { body: accountFields(opts, true) })) as Row;
        return { value: v, text: fields(v) };
      },
    ).option('--name <name>', 'its name'),
    true,
  );
  apiCommand(
    account,
    ctx,
    'topup <id>',
    'add micro-units to its quota (a credit line)',
    async ({ api, args, opts }) => {
      const body = defined({ amount: num('--amount', s(opts, 'amount')), idempotency_key: s(opts, 'idempotencyKey') });
      const v = (await api.call('POST', `/accounts/${enc(args[0]!)}/topup`, { body })) as Row;
      return { value: v, text: fields(v, ['id', 'name', 'quota', 'spent', 'remaining', 'topup']) };
    },
  )
    .requiredOption('--amount <micro>', 'micro-units to add')
    .option('--idempotency-key <key>', 'the same key credits once');
  apiCommand(
    account,
    ctx,
    'revoke <id>',
    'every token of the account is refused from now on',
    async ({ api, args }) => {
      const v = (await api.call('DELETE', `/accounts/${enc(args[0]!)}`)) as Row;
      return { value: v, text: `revoked ${v.id} (${v.name})` };
    },
  );
  apiCommand(account, ctx, 'usage <id>', 'balance, budgets in their period, charges per model', async (r) => {
    const query = {
      since: time('--since', s(r.opts, 'since'), 'past'),
      until: time('--until', s(r.opts, 'until'), 'past'),
    };
    const v = (await r.api.call('GET', `/accounts/${enc(r.args[0]!)}/usage`, { query })) as Row;
    return { value: v, text: usageText(v) };
  })
    .option('--since <time>', 'from (ISO 8601, a span ago such as 7d, or ms)')
    .option('--until <time>', 'until (same forms)');

  const group = program.command('price-group').description('price groups (/admin/price-groups)');
  apiCommand(group, ctx, 'set <name>', 'create or replace a price group', async ({ api, args, opts }) => {
    const given = opts.price as string[] | undefined;
    const multiplier = s(opts, 'multiplier');
    const body = defined({
      multiplier: multiplier === undefined ? undefined : Number(multiplier),
      prices: given ? priceFlags(given) : undefined,
    });
    const v = (await api.call('PUT', `/price-groups/${enc(args[0]!)}`, { body })) as Row;
    return { value: v, text: fields(v) };
  })
    .option('--multiplier <x>', 'list prices times X')
    .option('--price <model=json>', "a model's own price (repeatable)", collect);
  paged(
    apiCommand(group, ctx, 'list', 'price groups', async ({ api, opts }) => {
      const v = (await api.call('GET', '/price-groups', { query: pageArgs(opts) })) as Page;
      return { value: v, text: pageText(v, ['name', 'multiplier', 'prices', 'updated_at']) };
    }),
  );
}

/** --price MODEL=PRICE_JSON (repeatable) → the body's prices. */
function priceFlags(given: string[]): Record<string, unknown> {
  const prices: Record<string, unknown> = {};
  for (const p of given) {
    const eq = p.indexOf('=');
    if (eq < 1) throw new UsageError(`--price must be MODEL=PRICE_JSON, got "${p}"`);
    try {
      prices[p.slice(0, eq)] = JSON.parse(p.slice(eq + 1)) as unknown;
    } catch {
      throw new UsageError(`--price ${p.slice(0, eq)}: the price is not JSON`);
    }
  }
  return prices;
}
