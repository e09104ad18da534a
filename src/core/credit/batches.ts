// Redemption code batches as a `billing` person manages them: create (the codes shown once, kept hashed), list, read
// with each code's redemption state, revoke. Each change has an audit line.
import { createBatchBody, MAX_BATCH_CODES } from '../admin/bodies/credit.ts';
import { newId } from '../../auth/token-secret.ts';
import { decodeCursor, encodeCursor } from '../../contracts/cursor.ts';
import { optString } from '../../contracts/fields.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CreditBatchRecord, CreditCodeRecord } from '../../store/repos/credit-codes.ts';
import { actorName, audit, type Actor } from '../admin/deps.ts';
import { checkExpiry } from '../admin/holders.ts';
import type { Page } from '../admin/lists.ts';
import { hashCode, hintOf, newCode } from './codes.ts';
import type { CreditDeps } from './deps.ts';

/** The most codes one batch may hold: its codes are answered in one response, once. */
export { MAX_BATCH_CODES };

export interface NewBatch {
  name: string | null;
  count: number;
  /** Micro-units each code credits. */
  amount: number;
  expiresAt: number;
}

export interface BatchView {
  object: 'credit.batch';
  id: string;
  name: string | null;
  amount: number;
  count: number;
  redeemed: number;
  expires_at: number;
  revoked_at: number | null;
  /** active, expired or revoked. */
  state: 'active' | 'expired' | 'revoked';
  created_by: string;
  created_at: number;
}

export interface CodeView {
  id: string;
  /** The code's last characters (`twc_…abcd`); the code itself is never shown again. */
  hint: string;
  state: 'unused' | 'redeemed' | 'expired' | 'revoked';
  redeemed_at: number | null;
  holder_kind: 'token' | 'account' | null;
  holder_id: string | null;
  token_id: string | null;
}

const batchState = (b: CreditBatchRecord, now: number): BatchView['state'] =>
  b.revokedAt !== null ? 'revoked' : b.expiresAt <= now ? 'expired' : 'active';

export function publicBatch(b: CreditBatchRecord, now = Date.now()): BatchView {
  return {
    object: 'credit.batch',
    id: b.id,
    name: b.name,
    amount: b.amount,
    count: b.count,
    redeemed: b.redeemed,
    expires_at: b.expiresAt,
    revoked_at: b.revokedAt,
    state: batchState(b, now),
    created_by: b.createdBy,
    created_at: b.createdAt,
  };
}

export function publicCode(c: CreditCodeRecord, b: CreditBatchRecord, now = Date.now()): CodeView {
  const s = batchState(b, now);
  return {
    id: c.id,
    hint: `twc_…${c.hint}`,
    state: c.redeemedAt !== null ? 'redeemed' : s === 'active' ? 'unused' : s,
    redeemed_at: c.redeemedAt,
    holder_kind: c.holderKind,
    holder_id: c.holderId,
    token_id: c.tokenId,
  };
}

export function parseCreateBatch(body: unknown, now = Date.now()): NewBatch {
  // The shapes and unknown fields are the schema's (admin/bodies/credit.ts); the rules after it are not its.
  const o = createBatchBody(body);
  checkExpiry(o.expires_at, now);
  const name = optString(o, 'name', { max: 200, name: true })?.trim() || null;
  return { name, count: o.count, amount: o.amount, expiresAt: o.expires_at };
}

/** A new batch and its codes, each shown only in this answer. */
export async function createBatch(
  deps: CreditDeps,
  by: Actor,
  input: NewBatch,
  now = Date.now(),
): Promise<{ batch: CreditBatchRecord; codes: string[] }> {
  const codes = Array.from({ length: input.count }, newCode);
  const batch = await deps.repos.creditCodes.createBatch(
    { id: newId('cb'), ...input, createdBy: actorName(by), createdAt: now },
    codes.map((code) => ({ id: newId('cc'), hash: hashCode(code), hint: hintOf(code) })),
  );
  await audit(deps, by, 'credit.batch.create', batch.id, {
    name: batch.name,
    count: batch.count,
    amount: batch.amount,
    expires_at: batch.expiresAt,
  });
  return { batch, codes };
}

export async function getBatch(deps: CreditDeps, id: string): Promise<CreditBatchRecord> {
  const b = await deps.repos.creditCodes.getBatch(id);
  if (!b) throw new GatewayError('not_found', `Credit batch ${id} not found`);
  return b;
}

/** A batch with each of its codes' redemption state. */
export async function batchDetail(deps: CreditDeps, id: string, now = Date.now()) {
  const b = await getBatch(deps, id);
  const codes = await deps.repos.creditCodes.codesOf(id);
  return { ...publicBatch(b, now), codes: codes.map((c) => publicCode(c, b, now)) };
}

/** Revoke: its unredeemed codes are refused from then on; redeemed ones keep their credit. */
export async function revokeBatch(
  deps: CreditDeps,
  by: Actor,
  id: string,
  now = Date.now(),
): Promise<CreditBatchRecord> {
  await getBatch(deps, id);
  if (await deps.repos.creditCodes.revokeBatch(id, now)) await audit(deps, by, 'credit.batch.revoke', id);
  return getBatch(deps, id);
}

const afterOf = (cursor: string | undefined) => {
  if (cursor === undefined) return undefined;
  const [at, id] = decodeCursor(cursor, ['n', 's']);
  return { at: at as number, id: id as string };
};

/** A page of newest-first rows read one more than the limit, with the cursor after its last. */
export function pageFrom<R, V>(rows: R[], limit: number, key: (r: R) => [number, string], view: (r: R) => V): Page<V> {
  const more = rows.length > limit;
  const data = more ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return { data: data.map(view), has_more: more, ...(more && last ? { next_cursor: encodeCursor(key(last)) } : {}) };
}

export async function batchPage(deps: CreditDeps, limit: number, cursor?: string): Promise<Page<BatchView>> {
  const rows = await deps.repos.creditCodes.listBatches(limit + 1, afterOf(cursor));
  const now = Date.now();
  return pageFrom(
    rows,
    limit,
    (b) => [b.createdAt, b.id],
    (b) => publicBatch(b, now),
  );
}

export interface RedemptionView {
  object: 'credit.redemption';
  code_id: string;
  hint: string;
  batch_id: string;
  batch_name: string | null;
  amount: number;
  holder_kind: 'token' | 'account' | null;
  holder_id: string | null;
  token_id: string | null;
  redeemed_at: number;
}

export async function redemptionPage(deps: CreditDeps, limit: number, cursor?: string): Promise<Page<RedemptionView>> {
  const rows = await deps.repos.creditCodes.redemptions(limit + 1, afterOf(cursor));
  return pageFrom(
    rows,
    limit,
    (r) => [r.redeemedAt ?? 0, r.id],
    (r) => ({
      object: 'credit.redemption',
      code_id: r.id,
      hint: `twc_…${r.hint}`,
      batch_id: r.batchId,
      batch_name: r.batchName,
      amount: r.amount,
      holder_kind: r.holderKind,
      holder_id: r.holderId,
      token_id: r.tokenId,
      redeemed_at: r.redeemedAt ?? 0,
    }),
  );
}
