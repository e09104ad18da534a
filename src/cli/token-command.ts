// `tollway token …`: the admin API's token operations on the store, with the same validation.
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import { parseCallbackSecretRotate, rotateCallbackSecret } from '../core/admin/callback-secrets.ts';
import { issueToken, listTokens, parseCreateToken, revokeToken } from '../core/admin/tokens.ts';
import { tokenView, tokenViews } from '../core/admin/token-views.ts';
import {
  parseRotate,
  parseTokenPatch,
  parseTopUp,
  rotateToken,
  topUp,
  updateToken,
} from '../core/admin/token-changes.ts';
import { budgetFlags } from './account-command.ts';
import { CLI, defined, modelList, num, onlyFlags, orNone, print, usageError, UsageError, withAdmin } from './args.ts';

export async function tokenCommand(config: Config, sub: string | undefined, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      models: { type: 'string' },
      quota: { type: 'string' },
      'expires-at': { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      concurrency: { type: 'string' },
      amount: { type: 'string' },
      'idempotency-key': { type: 'string' },
      'grace-ms': { type: 'string' },
      account: { type: 'string' },
      budget: { type: 'string', multiple: true },
    },
  });
  const id = positionals[0];
  if (sub === 'create') {
    onlyFlags(values, 'token create', [
      'name',
      'models',
      'quota',
      'expires-at',
      'rpm',
      'tpm',
      'concurrency',
      'account',
      'budget',
    ]);
    if (!values.name) throw new UsageError('--name is required');
    // The same validation as POST /admin/tokens (unknown models, past expiry …).
    const input = parseCreateToken({
      name: values.name,
      models: modelList(values.models),
      quota: num('--quota', values.quota),
      expires_at: num('--expires-at', values['expires-at']),
      rpm_limit: num('--rpm', values.rpm),
      tpm_limit: num('--tpm', values.tpm),
      concurrency_limit: num('--concurrency', values.concurrency),
      ...defined({ account_id: values.account, budgets: budgetFlags(values.budget) }),
    });
    return withAdmin(config, async (deps) => {
      const { record, secret, callbackSecret } = await issueToken(deps, CLI, input);
      print(
        `id:              ${record.id}\ntoken:           ${secret}\ncallback secret: ${callbackSecret}\n(both are shown only once; the callback secret verifies this token's task callbacks)`,
      );
      return 0;
    });
  }
  if (sub === 'list' || sub === 'revoke') onlyFlags(values, `token ${sub}`, []);
  if (sub === 'list') return withAdmin(config, async (deps) => print(await tokenViews(deps, await listTokens(deps))));
  if (sub === 'revoke' && id)
    return withAdmin(config, async (deps) => {
      await revokeToken(deps, CLI, id);
      return print(`revoked ${id}`);
    });
  if (sub === 'update' && id) {
    onlyFlags(values, 'token update', [
      'name',
      'models',
      'quota',
      'rpm',
      'tpm',
      'concurrency',
      'expires-at',
      'account',
      'budget',
    ]);
    // The same validation as PATCH /admin/tokens/{id}.
    const patch = parseTokenPatch(
      defined({
        name: values.name,
        models: orNone(values.models, modelList),
        quota: orNone(values.quota, (v) => num('--quota', v)),
        rpm_limit: orNone(values.rpm, (v) => num('--rpm', v)),
        tpm_limit: orNone(values.tpm, (v) => num('--tpm', v)),
        concurrency_limit: orNone(values.concurrency, (v) => num('--concurrency', v)),
        expires_at: orNone(values['expires-at'], (v) => num('--expires-at', v)),
        account_id: orNone(values.account, (v) => v),
        budgets: budgetFlags(values.budget),
      }),
    );
    return withAdmin(config, async (deps) => print(await tokenView(deps, await updateToken(deps, CLI, id, patch))));
  }
  if (sub === 'topup' && id) {
    onlyFlags(values, 'token topup', ['amount', 'idempotency-key']);
    const input = parseTopUp(
      defined({ amount: num('--amount', values.amount), idempotency_key: values['idempotency-key'] }),
    );
    return withAdmin(config, async (deps) => {
      const r = await topUp(deps, CLI, id, input);
      print({ ...(await tokenView(deps, r.token)), topup: { amount: r.amount, credited: r.credited } });
      return 0;
    });
  }
  if (sub === 'rotate' && id) {
    onlyFlags(values, 'token rotate', ['grace-ms']);
    const opts = parseRotate(defined({ grace_ms: num('--grace-ms', values['grace-ms']) }));
    return withAdmin(config, async (deps) => {
      const { record, secret } = await rotateToken(deps, CLI, id, opts);
      const grace =
        record.previousSecretUntil === null
          ? 'the previous token is refused from now on'
          : `the previous token works until ${new Date(record.previousSecretUntil).toISOString()}`;
      print(`id:    ${record.id}\ntoken: ${secret}\n(the token is shown only once; ${grace})`);
      return 0;
    });
  }
  if (sub === 'rotate-callback-secret' && id) {
    onlyFlags(values, 'token rotate-callback-secret', ['grace-ms']);
    const opts = parseCallbackSecretRotate(
      defined({ grace_ms: num('--grace-ms', values['grace-ms']) }),
      config.callbacks.secretGraceMs,
    );
    return withAdmin(config, async (deps) => {
      const { record, callbackSecret } = await rotateCallbackSecret(deps, CLI, id, opts);
      const until = record.previousCallbackSecretUntil;
      const grace =
        until === null
          ? 'callbacks are no longer signed with the previous one'
          : `callbacks are signed with the previous one too until ${new Date(until).toISOString()}`;
      print(`id:              ${record.id}\ncallback secret: ${callbackSecret}\n(shown only once; ${grace})`);
      return 0;
    });
  }
  return usageError();
}
