// Model visibility depends on upstream account entitlements. The upstream tells the gateway when an
// account is not entitled to a model (DashScope 403 Model.AccessDenied / AccessDenied.Unpurchased, Kling 1103);
// the channels of that account then leave that upstream model's routing — for the refused tenant at once, for every
// tenant once a second one was refused — and the model its visibility when no other account serves it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/index.ts';
import type { Principal } from '../../src/auth/principal.ts';
import type { ModelEntry } from '../../src/catalogue/types.ts';
import { ChannelRegistry, NOT_ENTITLED_TTL_MS } from '../../src/routing/channel-registry.ts';
import type { ChannelRecord, ChannelsRepo } from '../../src/store/repos/channels.ts';
import type { SecretBox } from '../../src/auth/secret-box.ts';
import { useHarness, type Harness } from '../support/harness.ts';
import { ledgerOfRequest } from '../support/store-rows.ts';
import { secondUpstream } from '../support/upstreams.ts';
import type { BErr } from '../support/error-shapes.ts';

const CHAT = '/compatible-mode/v1/chat/completions';
const chat = (content = 'hello') => ({ model: 'qwx3.7-plus', messages: [{ role: 'user', content }] });

async function modelIds(h: Harness, token: string): Promise<string[]> {
  const r = await h.fetch('/v1/models', { token });
  return ((await r.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
}

describe('one account, not entitled to a model', () => {
  const t = useHarness();

  it("one tenant's refusal steers only its own calls: the model stays visible and callable for the others", async () => {
    expect(await modelIds(t.h, t.token)).toContain('qwx3.7-plus');
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: chat('sim-fault:not-entitled'),
    });
    expect(r.status).toBe(403);
    const e = ((await r.json()) as BErr).error;
    expect(e.code).toBe('upstream_permission_denied');
    expect(e.message).toMatch(/no access to this model.*model activation/);
    expect(e.message).not.toMatch(/Model\.AccessDenied/);

    // The refused tenant: not visible, not callable (404, no upstream call); other models untouched.
    const ids = await modelIds(t.h, t.token);
    expect(ids).not.toContain('qwx3.7-plus');
    expect(ids).toContain('qwx3-vl-plus');
    const before = t.h.sim.requestsTo(CHAT).length;
    const again = await t.h.fetch('/v1/chat/completions', { method: 'POST', token: t.token, json: chat() });
    expect(again.status).toBe(404);
    expect(((await again.json()) as BErr).error.code).toBe('model_not_found');
    expect(t.h.sim.requestsTo(CHAT).length).toBe(before);

    // Every other tenant still sees and calls it: one client's refusal is no lever over the others.
    const other = (await t.h.token()).secret;
    expect(await modelIds(t.h, other)).toContain('qwx3.7-plus');
    expect((await t.h.fetch('/v1/chat/completions', { method: 'POST', token: other, json: chat() })).status).toBe(200);

    // A second tenant refused the same account and model: the account's entitlement, whoever asks.
    expect(
      (await t.h.fetch('/v1/chat/completions', { method: 'POST', token: other, json: chat('sim-fault:not-entitled') }))
        .status,
    ).toBe(403);
    const third = (await t.h.token()).secret;
    expect(await modelIds(t.h, third)).not.toContain('qwx3.7-plus');
    expect((await t.h.fetch('/v1/chat/completions', { method: 'POST', token: third, json: chat() })).status).toBe(404);
  });

  it('a refused dated snapshot marks that upstream model only: the base model stays visible and callable, for the same tenant too', async () => {
    const video = (model: string, prompt: string) =>
      t.h.fetch('/v1/videos', {
        method: 'POST',
        token: t.token,
        json: { model, prompt, seconds: 3, resolution: '720p' },
      });
    const refused = await video('wnx2.7-t2v-2020-01-01', 'sim-fault:not-entitled');
    expect(refused.status).toBe(403);
    expect(await modelIds(t.h, t.token)).toContain('wnx2.7-t2v');
    expect((await video('wnx2.7-t2v', 'a cat')).status).toBe(200);
    // The snapshot itself is what this tenant's calls now skip.
    expect((await video('wnx2.7-t2v-2020-01-01', 'a cat')).status).toBe(404);
  });
});

describe('two accounts, the primary not entitled', () => {
  const t = useHarness();
  let backup: { sim: Simulator; close(): Promise<void> };
  beforeAll(async () => {
    backup = await secondUpstream(t.h);
  });
  afterAll(async () => backup?.close());

  it('chat is served by the account that is entitled, charged once; later calls skip the primary; the model stays visible', async () => {
    t.h.sim.faults.add({ kind: 'not-entitled', path: CHAT });
    const b = backup.sim.requestsTo(CHAT).length;
    const r = await t.h.fetch('/v1/chat/completions', { method: 'POST', token: t.token, json: chat() });
    expect(r.status).toBe(200);
    expect(backup.sim.requestsTo(CHAT).length).toBe(b + 1);
    expect(await ledgerOfRequest(t.h, r.headers.get('x-gateway-request-id')!)).toHaveLength(1);

    const p = t.h.sim.requestsTo(CHAT).length;
    for (let i = 0; i < 3; i++)
      expect((await t.h.fetch('/v1/chat/completions', { method: 'POST', token: t.token, json: chat() })).status).toBe(
        200,
      );
    expect(t.h.sim.requestsTo(CHAT).length).toBe(p);
    expect(backup.sim.requestsTo(CHAT).length).toBe(b + 4);
    expect(await modelIds(t.h, t.token)).toContain('qwx3.7-plus');
  });

  it('an image call (never repeated once it may have been accepted) still moves on after a not-entitled refusal', async () => {
    const IMG = 'multimodal-generation/generation';
    t.h.sim.faults.add({ kind: 'not-entitled', path: IMG });
    const b = backup.sim.requestsTo(IMG).length;
    const r = await t.h.fetch('/v1/images/generations', {
      method: 'POST',
      token: t.token,
      json: { model: 'qwx-image-2.0', prompt: 'a cat', n: 1 },
    });
    expect(r.status).toBe(200);
    expect(backup.sim.requestsTo(IMG).length).toBe(b + 1);
    expect(await ledgerOfRequest(t.h, r.headers.get('x-gateway-request-id')!)).toHaveLength(1);
  });
});

describe('ChannelRegistry entitlement memory', () => {
  const entry = { id: 'qwx3.7-plus', upstream: 'dashscope', upstreamModel: 'qwen3.7-plus' } as ModelEntry;
  /** Refusals of the model to ch_1's account by two tenants: the mark every tenant's routing sees. */
  const markForAll = (reg: ChannelRegistry, model = entry.upstreamModel) => {
    const ch = reg.all().find((c) => c.id === 'ch_1')!;
    reg.markNotEntitled(ch, model, 'tok:a');
    reg.markNotEntitled(ch, model, 'tok:b');
  };
  const record = (over: Partial<ChannelRecord> = {}): ChannelRecord =>
    ({
      id: 'ch_1',
      name: 'a',
      kind: 'dashscope',
      baseUrl: 'http://u',
      keyEnc: 'k1',
      models: null,
      priority: 0,
      weight: 1,
      status: 'enabled',
      ...over,
    }) as ChannelRecord;
  let rows: ChannelRecord[] = [record()];
  const repo = { list: async () => rows } as unknown as ChannelsRepo;
  const box = { open: () => '{"apiKey":"sk-x"}' } as unknown as SecretBox;

  it('forgets a refusal after its time, and at once when the channel is changed (not on a plain reload)', async () => {
    let now = 1_000_000;
    const reg = new ChannelRegistry(repo, box, () => now);
    await reg.reload();
    expect(reg.serves(entry)).toBe(true);
    markForAll(reg);
    expect(reg.serves(entry)).toBe(false);
    expect(reg.forModel(entry)).toEqual([]);
    await reg.reload(); // a periodic refresh with nothing changed keeps what was learnt
    expect(reg.serves(entry)).toBe(false);
    now += NOT_ENTITLED_TTL_MS + 1;
    expect(reg.serves(entry)).toBe(true);

    markForAll(reg);
    expect(reg.serves(entry)).toBe(false);
    rows = [record({ keyEnc: 'k2' })]; // the operator put another key on the channel
    await reg.reload();
    expect(reg.serves(entry)).toBe(true);
  });

  it("a mark falls on the refused account and upstream model: that account's channels, one tenant's calls until a second is refused", async () => {
    try {
      rows = [
        record({ account: 'acme' }),
        record({ id: 'ch_2', account: 'acme' }),
        record({ id: 'ch_3', account: 'other' }),
      ];
      const reg = new ChannelRegistry(repo, box, () => 1_000_000);
      await reg.reload();
      const who = (tokenId: string) => ({ tokenId, billing: null }) as unknown as Principal;
      const ids = (p: Principal | null, model = entry.upstreamModel) =>
        reg
          .forModel(entry, model, p)
          .map((c) => c.id)
          .sort();
      reg.markNotEntitled(reg.get('ch_1')!, entry.upstreamModel, 'tok:a');
      expect(ids(who('a'))).toEqual(['ch_3']);
      expect(ids(who('b'))).toEqual(['ch_1', 'ch_2', 'ch_3']);
      expect(ids(null)).toEqual(['ch_1', 'ch_2', 'ch_3']);
      expect(ids(who('a'), 'qwen3.7-plus-2020-01-01')).toEqual(['ch_1', 'ch_2', 'ch_3']);
      reg.markNotEntitled(reg.get('ch_2')!, entry.upstreamModel, 'tok:a'); // the same tenant again: still its own
      expect(ids(who('b'))).toEqual(['ch_1', 'ch_2', 'ch_3']);
      reg.markNotEntitled(reg.get('ch_2')!, entry.upstreamModel, 'tok:b');
      expect(ids(who('c'))).toEqual(['ch_3']);
      expect(ids(null)).toEqual(['ch_3']);
    } finally {
      rows = [record()];
    }
  });

  it("a model's routes are kept between calls (frozen) and across a reload that changes nothing, and recomputed after a change", async () => {
    try {
      rows = [
        record(),
        record({ id: 'ch_2', priority: 5 }),
        record({ id: 'ch_3', kind: 'kling' } as Partial<ChannelRecord>),
      ];
      const reg = new ChannelRegistry(repo, box, () => 1_000_000);
      await reg.reload();
      const first = reg.forModel(entry);
      expect(first.map((c) => c.id)).toEqual(['ch_2', 'ch_1']);
      expect(reg.forModel(entry)).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      // The periodic re-read of unchanged rows keeps the channel objects and the routes cached for them.
      const channels = reg.all();
      rows = rows.map((r) => ({ ...r }));
      await reg.reload();
      expect(reg.forModel(entry)).toBe(first);
      expect(reg.all()).toBe(channels);
      rows = [record({ priority: 9 }), record({ id: 'ch_2', priority: 5 })];
      await reg.reload();
      expect(reg.forModel(entry).map((c) => c.id)).toEqual(['ch_1', 'ch_2']);
      expect(reg.all()).not.toBe(channels);
    } finally {
      rows = [record()];
    }
  });

  it('an expired mark on a model nobody asks for again does not keep other models off their kept routes', async () => {
    let now = 1_000_000;
    const reg = new ChannelRegistry(repo, box, () => now);
    await reg.reload();
    markForAll(reg, 'some-other-model');
    const during = reg.forModel(entry);
    expect(reg.forModel(entry)).not.toBe(during); // while a mark stands, routes are computed each time
    now += NOT_ENTITLED_TTL_MS + 1;
    const after = reg.forModel(entry);
    expect(reg.forModel(entry)).toBe(after); // the expired mark is gone: kept again
    expect(after.map((c) => c.id)).toEqual(['ch_1']);
  });
});
