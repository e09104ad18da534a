// A top-up names its holder's kind (ledger.holder_kind, migration 030), on the dialect the harness picks: a token's
// credit line says 'token', an account's says 'account' (and keeps the account id in token_id and account_id, as
// bills read it); a repeated key credits nothing again; a charge leaves the column null.
import { describe, expect, it } from 'vitest';
import { topUpHolder } from '../../src/metering/top-up.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { useStore } from '../support/store.ts';

const fresh = useStore();

describe('a top-up names its holder', () => {
  it("writes the holder's kind on its credit line, for a token and for an account", async () => {
    const db = fresh.store.db;
    await new AccountsRepo(db).create({
      id: 'acc_tu1',
      name: 'a',
      quota: 1_000,
      budgets: [],
      priceGroup: null,
      timeZone: null,
      expiresAt: null,
    });
    await new TokensRepo(db).create({
      id: 'tok_tu1',
      name: 't',
      secretHash: 'h_tu1',
      prefix: 'tw-',
      models: null,
      quota: 500,
      expiresAt: null,
    });
    expect(
      await topUpHolder(db, 'token', { holderId: 'tok_tu1', amount: 100, key: 'k_tok', requestId: null, at: 1 }),
    ).toEqual({
      outcome: 'credited',
      quota: 600,
    });
    expect(
      await topUpHolder(db, 'account', { holderId: 'acc_tu1', amount: 200, key: 'k_acc', requestId: null, at: 2 }),
    ).toEqual({
      outcome: 'credited',
      quota: 1_200,
    });
    expect(
      await topUpHolder(db, 'account', { holderId: 'acc_tu1', amount: 200, key: 'k_acc', requestId: null, at: 3 }),
    ).toEqual({
      outcome: 'repeated',
      quota: 1_200,
    });
    const lines = await db
      .selectFrom('ledger')
      .select(['idempotency_key', 'token_id', 'account_id', 'holder_kind'])
      .orderBy('idempotency_key')
      .execute();
    expect(lines).toEqual([
      { idempotency_key: 'k_acc', token_id: 'acc_tu1', account_id: 'acc_tu1', holder_kind: 'account' },
      { idempotency_key: 'k_tok', token_id: 'tok_tu1', account_id: null, holder_kind: 'token' },
    ]);
  });
});
