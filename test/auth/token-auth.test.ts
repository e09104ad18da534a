import { Client } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { credentialFrom, TokenAuth } from '../../src/auth/token-auth.ts';
import { hashToken, newTokenSecret, safeEqual } from '../../src/auth/token-secret.ts';
import { isGatewayError } from '../../src/errors/gateway-error.ts';
import type { TokenRecord } from '../../src/store/repos/token-record.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { useHarness } from '../support/harness.ts';
import type { AErr, BErr } from '../support/error-shapes.ts';

const t = useHarness();
afterEach(() => {
  vi.restoreAllMocks();
});

/** GET /v1/models (family B) and POST text2video (family A) with the given headers. */
async function both(headers: Record<string, string>) {
  const b = await t.h.fetch('/v1/models', { headers });
  const a = await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', headers, json: { prompt: 'a cat' } });
  return { a, b, aBody: (await a.json()) as AErr, bBody: (await b.json()) as BErr };
}

function expectFamilyShapes(r: Awaited<ReturnType<typeof both>>, code: string, vendorCode: number) {
  expect(r.b.status).toBe(401);
  expect(r.a.status).toBe(401);
  expect(r.bBody.error.code).toBe(code);
  expect(r.bBody.error.type).toBe('authentication_error');
  expect(r.bBody.error.request_id).toBe(r.b.headers.get('x-gateway-request-id'));
  expect(r.bBody.error.message).toMatch(/\(request id: req_[0-9a-f]{32}\)$/);
  expect(r.aBody.code).toBe(vendorCode);
  expect(r.aBody.data).toBeNull();
  expect(r.aBody.request_id).toBe(r.a.headers.get('x-gateway-request-id'));
  expect(r.aBody.message.length).toBeGreaterThan(0);
}

describe('client auth through the real server', () => {
  it('missing token → 401 missing_token in both families', async () => {
    expectFamilyShapes(await both({}), 'missing_token', 1001);
  });

  it('a non-Bearer Authorization header is not a credential', async () => {
    expectFamilyShapes(await both({ authorization: 'Basic dXNlcjpwYXNz' }), 'missing_token', 1001);
  });

  it('unknown token → 401 invalid_token in both families', async () => {
    expectFamilyShapes(await both({ authorization: `Bearer ${newTokenSecret()}` }), 'invalid_token', 1002);
  });

  it('revoked token → 401 token_revoked in both families', async () => {
    const tok = await t.h.token();
    await t.h.gw.deps.repos.tokens.revoke(tok.id);
    t.h.gw.deps.tokenAuth.clear();
    expectFamilyShapes(await both({ authorization: `Bearer ${tok.secret}` }), 'token_revoked', 1002);
  });

  it('expired token → 401 token_expired in both families', async () => {
    const tok = await t.h.token({ expiresAt: Date.now() - 1_000 });
    expectFamilyShapes(await both({ authorization: `Bearer ${tok.secret}` }), 'token_expired', 1004);
  });

  it('a token that has not expired yet works', async () => {
    const tok = await t.h.token({ expiresAt: Date.now() + 3_600_000 });
    expect((await t.h.fetch('/v1/models', { token: tok.secret })).status).toBe(200);
  });

  it('x-api-key is accepted (messages-style SDKs)', async () => {
    const tok = await t.h.token();
    const r = await t.h.fetch('/v1/models', { headers: { 'x-api-key': tok.secret } });
    expect(r.status).toBe(200);
    // and a Basic header does not hide a valid x-api-key
    const r2 = await t.h.fetch('/v1/models', { headers: { authorization: 'Basic abc', 'x-api-key': tok.secret } });
    expect(r2.status).toBe(200);
  });

  it('the bearer scheme is case-insensitive', async () => {
    const tok = await t.h.token();
    expect((await t.h.fetch('/v1/models', { headers: { authorization: `bearer ${tok.secret}` } })).status).toBe(200);
  });

  it('token lookups are cached: many requests, one database lookup; revoke invalidates at once', async () => {
    const tok = await t.h.token();
    const spy = vi.spyOn(TokensRepo.prototype, 'findByHash');
    for (let i = 0; i < 6; i++) expect((await t.h.fetch('/v1/models', { token: tok.secret })).status).toBe(200);
    const forThisToken = () => spy.mock.calls.filter(([hash]) => hash === hashToken(tok.secret)).length;
    expect(forThisToken()).toBe(1);

    expect((await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' })).status).toBe(200);
    const r = await t.h.fetch('/v1/models', { token: tok.secret });
    expect(r.status).toBe(401);
    expect(((await r.json()) as BErr).error.code).toBe('token_revoked');
    expect(forThisToken()).toBe(2);
  });

  it("one keep-alive connection presenting different tokens gets each token's own answer", async () => {
    const narrow = await t.h.token({ models: ['qwx3.7-plus'] });
    const wide = await t.h.token();
    const other = await t.h.token();
    const client = new Client(t.h.url, { pipelining: 1 });
    let connections = 0;
    client.on('connect', () => connections++);
    try {
      const models = async (secret: string) => {
        const r = await client.request({
          path: '/v1/models',
          method: 'GET',
          headers: { authorization: `Bearer ${secret}` },
        });
        const body = (await r.body.json()) as { data?: Array<{ id: string }>; error?: { code: string } };
        return r.statusCode === 200 ? body.data!.map((m) => m.id) : body.error!.code;
      };
      expect(await models(narrow.secret)).toEqual(['qwx3.7-plus']);
      const all = await models(wide.secret);
      expect(all.length).toBeGreaterThan(1);
      expect(await models(narrow.secret)).toEqual(['qwx3.7-plus']);
      expect(await models(newTokenSecret())).toBe('invalid_token');
      // Revoked while the connection stays open: refused at its next request.
      expect(await models(other.secret)).toEqual(all);
      expect((await t.h.admin(`/admin/tokens/${other.id}`, { method: 'DELETE' })).status).toBe(200);
      expect(await models(other.secret)).toBe('token_revoked');
      expect(connections).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('the admin key is not a client token', async () => {
    const r = await t.h.fetch('/v1/models', { token: t.h.adminKey });
    expect(r.status).toBe(401);
  });
});

describe('TokenAuth unit', () => {
  const rec = (over: Partial<TokenRecord> = {}): TokenRecord => ({
    id: 'tok_1',
    name: 'n',
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

  it("re-reads after the TTL so other instances' revocations converge", async () => {
    let current: TokenRecord = rec();
    let lookups = 0;
    const repo = {
      findForAuth: async () => {
        lookups++;
        return { record: current, graceUntil: null };
      },
    } as unknown as TokensRepo;
    const auth = new TokenAuth(repo, 1_000);
    await auth.authenticate('tw-x', 10_000);
    await auth.authenticate('tw-x', 10_500);
    expect(lookups).toBe(1);
    current = rec({ revokedAt: 10_600 });
    await expect(auth.authenticate('tw-x', 10_900)).resolves.toMatchObject({ tokenId: 'tok_1' });
    const e = await auth.authenticate('tw-x', 11_100).catch((x: unknown) => x);
    expect(isGatewayError(e) && e.code).toBe('token_revoked');
    expect(lookups).toBe(2);
  });

  it('expiry is checked on every request, not cached', async () => {
    const repo = {
      findForAuth: async () => ({ record: rec({ expiresAt: 5_000 }), graceUntil: null }),
    } as unknown as TokensRepo;
    const auth = new TokenAuth(repo);
    await expect(auth.authenticate('tw-x', 4_000)).resolves.toBeTruthy();
    const e = await auth.authenticate('tw-x', 5_000).catch((x: unknown) => x);
    expect(isGatewayError(e) && e.code).toBe('token_expired');
  });

  it('the principal carries the allow-list and limits', async () => {
    const repo = {
      findForAuth: async () => ({
        record: rec({ models: ['a'], quota: 5, rpmLimit: 3, concurrencyLimit: 2 }),
        graceUntil: null,
      }),
    } as unknown as TokensRepo;
    expect(await new TokenAuth(repo).authenticate('tw-x')).toEqual({
      tokenId: 'tok_1',
      name: 'n',
      models: ['a'],
      quota: 5,
      rpmLimit: 3,
      tpmLimit: null,
      concurrencyLimit: 2,
      billing: null,
    });
  });

  it('a token of an account carries its billing, and is refused once the account is revoked and forgotten', async () => {
    const account = {
      id: 'acc_1',
      name: 'a',
      quota: 10,
      spent: 0,
      held: 0,
      budgets: [{ period: 'month' as const, limit: 7 }],
      priceGroup: 'g',
      timeZone: 'Asia/Tokyo',
      expiresAt: null,
      revokedAt: null as number | null,
      createdAt: 0,
      updatedAt: 0,
      weight: 3,
    };
    const repo = {
      findForAuth: async () => ({
        record: rec({ accountId: 'acc_1', budgets: [{ period: 'day', limit: 3 }] }),
        graceUntil: null,
        account: { ...account },
      }),
    } as unknown as TokensRepo;
    const auth = new TokenAuth(repo, 60_000);
    expect((await auth.authenticate('tw-x')).billing).toEqual({
      accountId: 'acc_1',
      priceGroup: 'g',
      timeZone: 'Asia/Tokyo',
      weight: 3,
      budgets: [
        { holderId: 'tok_1', period: 'day', limit: 3 },
        { holderId: 'acc_1', period: 'month', limit: 7 },
      ],
    });
    account.revokedAt = 1;
    // Cached: still admitted until the account's change is applied here.
    expect(auth.authenticateCached('tw-x')).not.toBeNull();
    auth.invalidateAccount('acc_2');
    expect(auth.authenticateCached('tw-x')).not.toBeNull();
    auth.invalidateAccount('acc_1');
    expect(auth.authenticateCached('tw-x')).toBeNull();
    await expect(auth.authenticate('tw-x')).rejects.toMatchObject({ code: 'token_revoked' });
  });

  it('credentialFrom', () => {
    expect(credentialFrom({ authorization: 'Bearer  abc ' })).toBe('abc');
    expect(credentialFrom({ authorization: 'Bearer ' })).toBeUndefined();
    expect(credentialFrom({ 'x-api-key': ' k ' })).toBe('k');
    expect(credentialFrom({})).toBeUndefined();
    expect(credentialFrom({ authorization: ' bearer\tabc' })).toBe('abc'); // scheme in any case, any whitespace
    expect(credentialFrom({ authorization: 'BEARER abc def' })).toBe('abc def');
    expect(credentialFrom({ authorization: 'Bearerabc' })).toBeUndefined(); // no space after the scheme
    expect(credentialFrom({ authorization: 'Bearer\u00a0\u00a0' })).toBeUndefined();
    // The usual form, and whitespace other than a space at either end of the token, trimmed as well.
    expect(credentialFrom({ authorization: 'Bearer abc' })).toBe('abc');
    expect(credentialFrom({ authorization: 'Bearer abc\u00a0' })).toBe('abc');
    expect(credentialFrom({ authorization: 'Bearer \u00a0abc' })).toBe('abc');
    expect(credentialFrom({ authorization: 'Bearer abc\t' })).toBe('abc');
    expect(credentialFrom({ authorization: 'Bearer a' })).toBe('a');
    expect(credentialFrom({ authorization: 'Basic dXNlcg==', 'x-api-key': 'k2' })).toBe('k2'); // another scheme: x-api-key
    expect(credentialFrom({ authorization: ['Bearer first', 'Bearer second'] })).toBe('first');
  });

  it('secrets and hashes', () => {
    const s = newTokenSecret();
    expect(s).toMatch(/^tw-[A-Za-z0-9]{43}$/);
    expect(newTokenSecret()).not.toBe(s);
    expect(hashToken(s)).toMatch(/^[0-9a-f]{64}$/);
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
