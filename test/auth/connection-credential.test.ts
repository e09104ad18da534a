// The per-connection memo of a credential's hash (TokenAuth `presented`): computed once while a connection repeats
// the same credential, never answering for another credential, and never standing between a revocation and an
// open connection.
// store-independent: the tokens repo is a stand-in object; only its types come from src/store/.
import { describe, expect, it, vi } from 'vitest';

const hashes = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../src/auth/token-secret.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/auth/token-secret.ts')>();
  return {
    ...real,
    hashToken: (s: string) => {
      hashes.calls++;
      return real.hashToken(s);
    },
  };
});

const { TokenAuth } = await import('../../src/auth/token-auth.ts');
const { hashToken } = await import('../../src/auth/token-secret.ts');
const { isGatewayError } = await import('../../src/errors/gateway-error.ts');
type TokenRecord = import('../../src/store/repos/token-record.ts').TokenRecord;
type TokensRepo = import('../../src/store/repos/tokens.ts').TokensRepo;

const rec = (id: string, over: Partial<TokenRecord> = {}): TokenRecord => ({
  id,
  name: id,
  prefix: 'tw-',
  models: null,
  quota: null,
  spent: 0,
  held: 0,
  rpmLimit: null,
  tpmLimit: null,
  concurrencyLimit: null,
  expiresAt: null,
  revokedAt: null,
  createdAt: 0,
  previousSecretUntil: null,
  callbackSecretIssuedAt: null,
  previousCallbackSecretUntil: null,
  accountId: null,
  budgets: [],
  ...over,
});

/** A repository of two tokens, A and B, found by the hash of their secrets. */
function twoTokens() {
  const records = new Map<string, TokenRecord>([
    [hashToken('tw-secret-a'), rec('tok_a')],
    [hashToken('tw-secret-b'), rec('tok_b')],
  ]);
  const repo = {
    findForAuth: async (hash: string) => (records.has(hash) ? { record: records.get(hash)!, graceUntil: null } : null),
  } as unknown as TokensRepo;
  return { records, auth: new TokenAuth(repo) };
}

describe("a connection's credential is hashed once", () => {
  it('a connection repeating its credential: one hash, every request answered from the cache', async () => {
    const { auth } = twoTokens();
    const conn = {};
    await auth.authenticate('tw-secret-a', 1_000, conn);
    hashes.calls = 0;
    for (let i = 0; i < 5; i++) expect(auth.authenticateCached('tw-secret-a', 1_000 + i, conn)?.tokenId).toBe('tok_a');
    expect(hashes.calls).toBe(0);
    // Without a connection, every call hashes.
    for (let i = 0; i < 3; i++) auth.authenticateCached('tw-secret-a', 1_000);
    expect(hashes.calls).toBe(3);
  });

  it('another credential on the same connection is hashed and answered as itself', async () => {
    const { auth } = twoTokens();
    const conn = {};
    expect((await auth.authenticate('tw-secret-a', 1_000, conn)).tokenId).toBe('tok_a');
    expect((await auth.authenticate('tw-secret-b', 1_000, conn)).tokenId).toBe('tok_b');
    expect((await auth.authenticate('tw-secret-a', 1_000, conn)).tokenId).toBe('tok_a');
    const e = await auth.authenticate('tw-secret-unknown', 1_000, conn).catch((x: unknown) => x);
    expect(isGatewayError(e) && e.code).toBe('invalid_token');
    // A secret that only shares a prefix with the remembered one is another credential.
    const e2 = await auth.authenticate('tw-secret-a2', 1_000, conn).catch((x: unknown) => x);
    expect(isGatewayError(e2) && e2.code).toBe('invalid_token');
  });

  it('two connections keep their own credentials', async () => {
    const { auth } = twoTokens();
    const c1 = {};
    const c2 = {};
    await auth.authenticate('tw-secret-a', 1_000, c1);
    await auth.authenticate('tw-secret-b', 1_000, c2);
    expect(auth.authenticateCached('tw-secret-a', 1_000, c1)?.tokenId).toBe('tok_a');
    expect(auth.authenticateCached('tw-secret-b', 1_000, c2)?.tokenId).toBe('tok_b');
    expect(auth.authenticateCached('tw-secret-a', 1_000, c2)?.tokenId).toBe('tok_a');
  });

  it('a revocation reaches an open connection at its next request', async () => {
    const { auth, records } = twoTokens();
    const conn = {};
    await auth.authenticate('tw-secret-a', 1_000, conn);
    records.set(hashToken('tw-secret-a'), rec('tok_a', { revokedAt: 1_500 }));
    auth.invalidateHash(hashToken('tw-secret-a'));
    expect(auth.authenticateCached('tw-secret-a', 2_000, conn)).toBeNull();
    const e = await auth.authenticate('tw-secret-a', 2_000, conn).catch((x: unknown) => x);
    expect(isGatewayError(e) && e.code).toBe('token_revoked');
  });
});
