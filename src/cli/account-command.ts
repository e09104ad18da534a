// `tollway account …` and `tollway price-group …`: the admin API's account and price-group operations on the store,
// with the same validation.
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import { accountUsage } from '../core/admin/account-usage.ts';
import {
  accountPage,
  createAccount,
  getAccount,
  parseAccountPatch,
  parseCreateAccount,
  publicAccount,
  revokeAccount,
  topUpAccountQuota,
  updateAccount,
} from '../core/admin/accounts.ts';
import { parsePriceGroup, publicPriceGroup, putPriceGroup } from '../core/admin/price-groups.ts';
import { parseTopUp } from '../core/admin/token-changes.ts';
import { CLI, defined, num, onlyFlags, orNone, print, usageError, UsageError, withAdmin } from './args.ts';

/** --budget PERIOD=LIMIT (repeatable) → budgets; `--budget none` → no budgets; absent → undefined. */
export function budgetFlags(v: string[] | undefined): Array<{ period: string; limit: number }> | null | undefined {
  if (v === undefined) return undefined;
  if (v.length === 1 && v[0] === 'none') return null;
  return v.map((b) => {
    const m = /^(\w+)=(\d+)$/.exec(b.trim());
    if (!m) throw new UsageError(`--budget must be PERIOD=LIMIT (day, week or month; micro-units), got "${b}"`);
    return { period: m[1]!, limit: Number(m[2]) };
  });
}

const OPTIONS = {
  name: { type: 'string' },
  quota: { type: 'string' },
  budget: { type: 'string', multiple: true },
  'price-group': { type: 'string' },
  'time-zone': { type: 'string' },
  'expires-at': { type: 'string' },
  weight: { type: 'string' },
  amount: { type: 'string' },
  'idempotency-key': { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
} as const;

const EDIT = ['name', 'quota', 'budget', 'price-group', 'time-zone', 'expires-at', 'weight'];

export async function accountCommand(config: Config, sub: string | undefined, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  const id = positionals[0];
  const fields = (edit: boolean) =>
    defined({
      name: values.name,
      quota: edit ? orNone(values.quota, (v) => num('--quota', v)) : num('--quota', values.quota),
      budgets: budgetFlags(values.budget),
      price_group: edit ? orNone(values['price-group'], (v) => v) : values['price-group'],
      time_zone: edit ? orNone(values['time-zone'], (v) => v) : values['time-zone'],
      expires_at: edit
        ? orNone(values['expires-at'], (v) => num('--expires-at', v))
        : num('--expires-at', values['expires-at']),
      weight: num('--weight', values.weight),
    });
  if (sub === 'create') {
    onlyFlags(values, 'account create', EDIT);
    const input = parseCreateAccount(fields(false));
    return withAdmin(config, async (deps) => print(publicAccount(await createAccount(deps, CLI, input))));
  }
  if (sub === 'list') {
    onlyFlags(values, 'account list', ['limit', 'cursor']);
    return withAdmin(config, async (deps) =>
      print(await accountPage(deps, num('--limit', values.limit) ?? 100, values.cursor)),
    );
  }
  if (sub === 'show' && id) {
    onlyFlags(values, 'account show', []);
    return withAdmin(config, async (deps) => print(publicAccount(await getAccount(deps, id))));
  }
  if (sub === 'revoke' && id) {
    onlyFlags(values, 'account revoke', []);
    return withAdmin(config, async (deps) => print(publicAccount(await revokeAccount(deps, CLI, id))));
  }
  if (sub === 'update' && id) {
    onlyFlags(values, 'account update', EDIT);
    const patch = parseAccountPatch(fields(true));
    return withAdmin(config, async (deps) => print(publicAccount(await updateAccount(deps, CLI, id, patch))));
  }
  if (sub === 'topup' && id) {
    onlyFlags(values, 'account topup', ['amount', 'idempotency-key']);
    const input = parseTopUp(
      defined({ amount: num('--amount', values.amount), idempotency_key: values['idempotency-key'] }),
    );
    return withAdmin(config, async (deps) => {
      const r = await topUpAccountQuota(deps, CLI, id, input);
      print({ ...publicAccount(r.account), topup: { amount: r.amount, credited: r.credited } });
      return 0;
    });
  }
  if (sub === 'usage' && id) {
    onlyFlags(values, 'account usage', ['since', 'until']);
    const range = { since: num('--since', values.since), until: num('--until', values.until) };
    // A one-shot command queues no charges: nothing to flush.
    return withAdmin(config, async (deps) =>
      print(
        await accountUsage({ repos: deps.repos, meter: { flush: async () => undefined, now: Date.now } }, id, range),
      ),
    );
  }
  return usageError();
}

/** `price-group set NAME [--multiplier X] [--price MODEL=PRICE_JSON]…` and `price-group list`. */
export async function priceGroupCommand(config: Config, sub: string | undefined, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { multiplier: { type: 'string' }, price: { type: 'string', multiple: true } },
  });
  if (sub === 'list') {
    onlyFlags(values, 'price-group list', []);
    return withAdmin(config, async (deps) => print((await deps.repos.priceGroups.all()).map(publicPriceGroup)));
  }
  const name = positionals[0];
  if (sub !== 'set' || !name) return usageError();
  const prices: Record<string, unknown> = {};
  for (const p of values.price ?? []) {
    const eq = p.indexOf('=');
    if (eq < 1) throw new UsageError(`--price must be MODEL=PRICE_JSON, got "${p}"`);
    try {
      prices[p.slice(0, eq)] = JSON.parse(p.slice(eq + 1));
    } catch {
      throw new UsageError(`--price ${p.slice(0, eq)}: the price is not JSON`);
    }
  }
  const multiplier = values.multiplier === undefined ? undefined : Number(values.multiplier);
  return withAdmin(config, async (deps) => {
    const input = parsePriceGroup(defined({ multiplier, prices: values.price ? prices : undefined }), deps);
    print(publicPriceGroup((await putPriceGroup(deps, CLI, name, input)).group));
    return 0;
  });
}
