// Customer accounts as the operator manages them (admin API and CLI alike): create, list, read, edit, top up,
// revoke. A change applies at once on this instance and is announced to the others (account-changed: every cached
// token of the account is read again), with an audit line.
import { newId } from '../../auth/token-secret.ts';
import { encodeCursor, decodeCursor } from '../../contracts/cursor.ts';
import { reqString } from '../../contracts/fields.ts';
import { ACCOUNT_FIELDS, accountPatchBody, createAccountBody } from './bodies/accounts.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { AccountPatch, AccountRecord } from '../../store/repos/accounts.ts';
import type { Page } from './lists.ts';
import { parseBudgets, parseTimeZone } from './budgets.ts';
import { checkExpiry, remaining, topUpQuota, type HolderSide } from './holders.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';
import { waitingDueFor } from '../../store/repos/slot-holders.ts';
import { stopHolder } from './holder-stop.ts';
import { isUniqueViolation } from '../../store/store-errors.ts';
import { echo } from '../../errors/echo.ts';

/** A top-up of a token or an account (creditQuota). */
export interface TopUpInput {
  /** Integer micro-units. */
  amount: number;
  /** Makes a retried top-up credit once. */
  idempotencyKey?: string | undefined;
}

export interface AccountView {
  object: 'account';
  id: string;
  name: string;
  /** Micro-units; null = unlimited. */
  quota: number | null;
  spent: number;
  held: number;
  remaining: number | null;
  budgets: Array<{ period: string; limit: number }>;
  price_group: string | null;
  time_zone: string | null;
  expires_at: number | null;
  revoked_at: number | null;
  /** Fair-share weight when an upstream account is contended (docs/operations.md#upstream-capacity). */
  weight: number;
  created_at: number;
  updated_at: number;
}

export function publicAccount(a: AccountRecord): AccountView {
  return {
    object: 'account',
    id: a.id,
    name: a.name,
    quota: a.quota,
    spent: a.spent,
    held: a.held,
    remaining: remaining(a.quota, a.spent, a.held),
    budgets: a.budgets,
    price_group: a.priceGroup,
    time_zone: a.timeZone,
    expires_at: a.expiresAt,
    revoked_at: a.revokedAt,
    weight: a.weight,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

// The shapes and unknown fields are the schemas' (bodies/accounts.ts); the rules after them are not JSON Schema's.
export function parseCreateAccount(b: unknown, now = Date.now()): Required<AccountPatch> {
  const o = createAccountBody(b);
  const expiresAt = o.expires_at ?? null;
  checkExpiry(expiresAt, now);
  return {
    name: reqString(o, 'name', { max: 200, name: true }),
    quota: o.quota ?? null,
    budgets: parseBudgets(o) ?? [],
    priceGroup: o.price_group ?? null,
    timeZone: parseTimeZone(o) ?? null,
    expiresAt,
    weight: o.weight ?? null,
  };
}

export function parseAccountPatch(b: unknown, now = Date.now()): AccountPatch {
  const o = accountPatchBody(b);
  if (Object.keys(o).length === 0)
    throw new GatewayError('invalid_request', `Nothing to change: send one or more of ${ACCOUNT_FIELDS.join(', ')}`);
  const p: AccountPatch = {};
  if (o.name !== undefined) p.name = reqString(o, 'name', { max: 200, name: true });
  if (o.quota !== undefined) p.quota = o.quota;
  const budgets = parseBudgets(o);
  if (budgets !== undefined) p.budgets = budgets;
  if (o.price_group !== undefined) p.priceGroup = o.price_group;
  const tz = parseTimeZone(o);
  if (tz !== undefined) p.timeZone = tz;
  checkExpiry(o.expires_at, now);
  if (o.expires_at !== undefined) p.expiresAt = o.expires_at;
  if (o.weight !== undefined) p.weight = o.weight;
  return p;
}

async function knownGroup(deps: Pick<AdminDeps, 'repos'>, name: string | null | undefined): Promise<void> {
  if (name && !(await deps.repos.priceGroups.get(name)))
    throw new GatewayError(
      'invalid_parameter',
      `Unknown price group: ${name} (create it first: PUT /admin/price-groups/${name})`,
      { param: 'price_group' },
    );
}

/** A name another account has (the store's unique index decides, across instances): 409 naming it. */
function nameTaken(name: string | undefined, e: unknown): unknown {
  if (name === undefined || !isUniqueViolation(e)) return e;
  return new GatewayError('conflict', `An account named ${echo(name)} already exists; account names are unique`, {
    param: 'name',
  });
}

export async function createAccount(deps: AdminDeps, by: Actor, input: Required<AccountPatch>): Promise<AccountRecord> {
  await knownGroup(deps, input.priceGroup);
  const a = await deps.repos.accounts.create({ id: newId('acc'), ...input }).catch((e: unknown) => {
    throw nameTaken(input.name, e);
  });
  await audit(deps, by, 'account.create', a.id, {
    name: a.name,
    quota: a.quota,
    budgets: a.budgets,
    price_group: a.priceGroup,
  });
  return a;
}

export async function getAccount(deps: Pick<AdminDeps, 'repos'>, id: string): Promise<AccountRecord> {
  const a = await deps.repos.accounts.get(id);
  if (!a) throw new GatewayError('not_found', `Account ${id} not found`);
  return a;
}

/** One page of accounts, oldest first; `cursor` is the previous page's next_cursor. */
export async function accountPage(
  deps: Pick<AdminDeps, 'repos'>,
  limit: number,
  cursor?: string,
): Promise<Page<AccountView>> {
  const after =
    cursor === undefined
      ? undefined
      : (([createdAt, id]) => ({ createdAt: createdAt as number, id: id as string }))(decodeCursor(cursor, ['n', 's']));
  const rows = await deps.repos.accounts.list(limit + 1, after);
  const more = rows.length > limit;
  const data = more ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return {
    data: data.map(publicAccount),
    has_more: more,
    ...(more && last ? { next_cursor: encodeCursor([last.createdAt, last.id]) } : {}),
  };
}

async function announce(deps: Pick<AdminDeps, 'applyChange'>, id: string): Promise<void> {
  await deps.applyChange({ kind: 'account-changed', id });
}

/** An edit, as a compare-and-set on the quota read (a top-up landing meanwhile makes it read again). */
export async function updateAccount(deps: AdminDeps, by: Actor, id: string, p: AccountPatch): Promise<AccountRecord> {
  await knownGroup(deps, p.priceGroup);
  for (let attempt = 0; attempt < 50; attempt++) {
    const before = await getAccount(deps, id);
    if (before.revokedAt !== null) throw new GatewayError('conflict', `Account ${id} is revoked`);
    const updated = await deps.repos.accounts.update(id, p, before.quota).catch((e: unknown) => {
      throw nameTaken(p.name, e);
    });
    if (!updated) continue;
    await announce(deps, id);
    await waitingDueFor(deps.store.db, { accountId: id });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const k of Object.keys(p) as Array<keyof AccountPatch>) changes[k] = { from: before[k], to: p[k] };
    await audit(deps, by, 'account.update', id, { changes });
    return getAccount(deps, id);
  }
  throw new GatewayError(
    'conflict',
    `Account ${id} kept changing while it was being edited (top-ups in flight); try again`,
  );
}

/** Revoke: every token of the account is refused at once, on every instance (account-changed). */
export async function revokeAccount(deps: AdminDeps, by: Actor, id: string): Promise<AccountRecord> {
  const before = await getAccount(deps, id);
  if (before.revokedAt !== null) return before;
  await deps.repos.accounts.revoke(id);
  await announce(deps, id);
  // Its tokens' tasks waiting for a parallel-task slot were never sent: the poller ends them uncharged, and the answer
  // waits for its creations in flight (holder-stop.ts).
  await stopHolder(deps.store.db, { accountId: id });
  await audit(deps, by, 'account.revoke', id);
  return getAccount(deps, id);
}

export async function topUpAccountQuota(
  deps: AdminDeps,
  by: Actor,
  id: string,
  input: TopUpInput,
): Promise<{ account: AccountRecord; amount: number; credited: boolean }> {
  const side: HolderSide<AccountRecord> = {
    kind: 'account',
    announce: (accountId) => announce(deps, accountId),
    get: (accountId) => getAccount(deps, accountId),
  };
  const { holder, ...r } = await topUpQuota(deps, by, side, id, input);
  return { account: holder, ...r };
}

/** An account a token may join: it exists and is not revoked. */
export async function joinableAccount(deps: Pick<AdminDeps, 'repos'>, id: string): Promise<void> {
  const a = await deps.repos.accounts.get(id);
  if (!a) throw new GatewayError('invalid_parameter', `Unknown account: ${id}`, { param: 'account_id' });
  if (a.revokedAt !== null) throw new GatewayError('conflict', `Account ${id} is revoked`, { param: 'account_id' });
}
