// `tollway token …`: /admin/tokens through the admin API.
import { type Command, Option } from 'commander';
import { budgetFlags, defined, modelList, num, orNone, pageQuery, time } from './args.ts';
import { apiCommand, collect, type Ctx, type Opts } from './command.ts';
import { fields, type Page, pageText, secretText } from './output.ts';
import { usageText } from './usage-text.ts';

type Row = Record<string, unknown>;
const s = (o: Opts, k: string) => o[k] as string | undefined;
const enc = encodeURIComponent;

export const TOKEN_COLUMNS = ['id', 'name', 'quota', 'spent', 'account_id', 'expires_at', 'revoked_at'];

/** --limit and --after on a list (--cursor: the old name of --after). */
export function paged(cmd: Command): Command {
  return cmd
    .option('--limit <n>', 'at most N per page (1–1000, default 100)')
    .option('--after <cursor>', "the next page: the previous page's next_cursor")
    .addOption(new Option('--cursor <cursor>').hideHelp());
}

export const pageArgs = (o: Opts) => {
  const p = pageQuery(o);
  return { limit: p.limit, cursor: p.cursor ?? s(o, 'cursor') };
};

function tokenFields(o: Opts, edit: boolean) {
  const n = (flag: string, k: string) => (edit ? orNone(s(o, k), (v) => num(flag, v)) : num(flag, s(o, k)));
  return defined({
    name: s(o, 'name'),
    models: edit ? orNone(s(o, 'models'), modelList) : modelList(s(o, 'models')),
    quota: n('--quota', 'quota'),
    rpm_limit: n('--rpm', 'rpm'),
    tpm_limit: n('--tpm', 'tpm'),
    concurrency_limit: n('--concurrency', 'concurrency'),
    expires_at: edit
      ? orNone(s(o, 'expiresAt'), (v) => time('--expires-at', v, 'future'))
      : time('--expires-at', s(o, 'expiresAt'), 'future'),
    account_id: edit ? orNone(s(o, 'account'), (v) => v) : s(o, 'account'),
    budgets: budgetFlags(o.budget as string[] | undefined),
  });
}

const limits = (cmd: Command, edit: boolean): Command => {
  const none = edit ? '|none' : '';
  return cmd
    .option(`--models <a,b${none}>`, 'the models it may call (default every model)')
    .option(`--quota <micro${none}>`, 'its balance in micro-units (default unlimited)')
    .option(`--rpm <n${none}>`, 'requests per minute')
    .option(`--tpm <n${none}>`, 'tokens per minute')
    .option(`--concurrency <n${none}>`, 'calls at once')
    .option(`--expires-at <time${none}>`, 'ISO 8601, a span from now (30d), or ms')
    .option(`--account <id${none}>`, 'the account it belongs to')
    .option(`--budget <period=micro${none}>`, 'a day, week or month budget (repeatable)', collect);
};

export function tokenCommands(program: Command, ctx: Ctx): void {
  const token = program.command('token').description('client tokens (/admin/tokens)');
  limits(
    apiCommand(token, ctx, 'create', 'a new client token; prints its secret once', async ({ api, opts }) => {
      const v = (await api.call('POST', '/tokens', { body: tokenFields(opts, false) })) as Row;
      const text = [
        fields(v, ['id', 'name', 'models', 'quota', 'expires_at']),
        '',
        secretText('token', String(v.token), 'the bearer token clients call with'),
        secretText('callback secret', String(v.callback_secret), "verifies this token's task callbacks"),
        '',
        'Both are shown only this once: copy them now.',
      ].join('\n');
      return { value: v, text };
    }).requiredOption('--name <name>', 'its name'),
    false,
  );
  paged(
    apiCommand(token, ctx, 'list', 'client tokens, oldest first, a page at a time', async ({ api, opts }) => {
      const v = (await api.call('GET', '/tokens', { query: pageArgs(opts) })) as Page;
      return { value: v, text: pageText(v, TOKEN_COLUMNS) };
    }),
  );
  apiCommand(token, ctx, 'show <id>', 'one token', async ({ api, args }) => {
    const v = (await api.call('GET', `/tokens/${enc(args[0]!)}`)) as Row;
    return { value: v, text: fields(v) };
  });
  apiCommand(token, ctx, 'usage <id>', "a token's balance and charges per model", async ({ api, args, opts }) => {
    const query = {
      since: time('--since', s(opts, 'since'), 'past'),
      until: time('--until', s(opts, 'until'), 'past'),
    };
    const v = (await api.call('GET', `/tokens/${enc(args[0]!)}/usage`, { query })) as Row;
    return { value: v, text: usageText(v) };
  })
    .option('--since <time>', 'from (ISO 8601, a span ago such as 7d, or ms)')
    .option('--until <time>', 'until (same forms)');
  limits(
    apiCommand(token, ctx, 'update <id>', "change a token's fields (none removes one)", async ({ api, args, opts }) => {
      const v = (await api.call('PATCH', `/tokens/${enc(args[0]!)}`, { body: tokenFields(opts, true) })) as Row;
      return { value: v, text: fields(v) };
    }).option('--name <name>', 'its name'),
    true,
  );
  apiCommand(token, ctx, 'revoke <id>', 'the token is refused from now on', async ({ api, args }) => {
    const v = (await api.call('DELETE', `/tokens/${enc(args[0]!)}`)) as Row;
    return { value: v, text: `revoked ${v.id} (${v.name})` };
  });
  apiCommand(token, ctx, 'topup <id>', 'add micro-units to the quota (a credit line)', async ({ api, args, opts }) => {
    const body = defined({ amount: num('--amount', s(opts, 'amount')), idempotency_key: s(opts, 'idempotencyKey') });
    const v = (await api.call('POST', `/tokens/${enc(args[0]!)}/topup`, { body })) as Row;
    return { value: v, text: fields(v, ['id', 'name', 'quota', 'spent', 'topup']) };
  })
    .requiredOption('--amount <micro>', 'micro-units to add')
    .option('--idempotency-key <key>', 'the same key credits once');
  apiCommand(token, ctx, 'rotate <id>', 'a new secret for the same token', async ({ api, args, opts }) => {
    const body = defined({ grace_ms: num('--grace-ms', s(opts, 'graceMs')) });
    const v = (await api.call('POST', `/tokens/${enc(args[0]!)}/rotate`, { body })) as Row;
    const until = v.previous_secret_until;
    const grace =
      typeof until === 'number'
        ? `the previous token works until ${new Date(until).toISOString()}`
        : 'the previous token is refused from now on';
    return {
      value: v,
      text: [`id: ${v.id}`, secretText('token', String(v.token), `shown only once; ${grace}`)].join('\n'),
    };
  }).option('--grace-ms <ms>', 'the old secret works this much longer (default 0)');
  apiCommand(token, ctx, 'rotate-callback-secret <id>', "a new secret for the token's task callbacks", async (r) => {
    const body = defined({ grace_ms: num('--grace-ms', s(r.opts, 'graceMs')) });
    const v = (await r.api.call('POST', `/tokens/${enc(r.args[0]!)}/callback-secret/rotate`, { body })) as Row;
    const until = v.previous_callback_secret_until;
    const grace =
      typeof until === 'number'
        ? `callbacks are signed with the previous one too until ${new Date(until).toISOString()}`
        : 'callbacks are no longer signed with the previous one';
    const text = [`id: ${v.id}`, secretText('callback secret', String(v.callback_secret), `shown only once; ${grace}`)];
    return { value: v, text: text.join('\n') };
  }).option('--grace-ms <ms>', 'the old one signs too for this long (default TOLLWAY_CALLBACK_SECRET_GRACE_MS)');
}
