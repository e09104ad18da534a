// Names people read in the console (accounts, tokens, channels) may not carry bidirectional controls: an override
// (U+202E) stored in a name reorders whatever the console shows after it. Refused on input with 400 naming the
// field, on creation and on edit, and nothing is stored — on the store TOLLWAY_TEST_DIALECT names.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();
const CONTROLS = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];

async function refused(r: Response, field: string): Promise<void> {
  expect(r.status).toBe(400);
  const e = ((await r.json()) as { error: { code: string; param: string; message: string } }).error;
  expect(e).toMatchObject({ code: 'invalid_parameter', param: field });
  expect(e.message).toMatch(/bidirectional/);
}

describe('bidirectional controls in names', () => {
  it('account, token and channel names: refused on create and on edit (400 naming the field), nothing stored', async () => {
    for (const c of CONTROLS) {
      const name = `invoice${c}gpj.exe`;
      await refused(await t.h.admin('/admin/accounts', { method: 'POST', json: { name } }), 'name');
      await refused(await t.h.admin('/admin/tokens', { method: 'POST', json: { name } }), 'name');
      await refused(
        await t.h.admin('/admin/channels', {
          method: 'POST',
          json: { name, kind: 'dashscope', base_url: t.h.sim.url, api_key: 'sk-bidi' },
        }),
        'name',
      );
    }
    const accounts = (await (await t.h.admin('/admin/accounts')).json()) as { data: Array<{ name: string }> };
    expect(accounts.data.some((a) => a.name.startsWith('invoice'))).toBe(false);

    const acct = await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'plain' } });
    expect(acct.status).toBe(201);
    const { id: accountId } = (await acct.json()) as { id: string };
    await refused(
      await t.h.admin(`/admin/accounts/${accountId}`, { method: 'PATCH', json: { name: 'x\u202Ey' } }),
      'name',
    );
    const tok = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'plain' } });
    const { id: tokenId } = (await tok.json()) as { id: string };
    await refused(await t.h.admin(`/admin/tokens/${tokenId}`, { method: 'PATCH', json: { name: 'x\u2067y' } }), 'name');
    const ch = t.h.gw.deps.channels.all()[0]!;
    await refused(await t.h.admin(`/admin/channels/${ch.id}`, { method: 'PATCH', json: { name: 'x\u202Dy' } }), 'name');
    expect(((await (await t.h.admin(`/admin/accounts/${accountId}`)).json()) as { name: string }).name).toBe('plain');

    // Right-to-left letters themselves are names like any other.
    expect((await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'שלום عالم' } })).status).toBe(201);
  });
});
