// The periodic cache refresh reloads only the caches whose table was written since their last reload: the versions
// the database moves on every write (migration 081) tell it, whatever the rows' own timestamps say.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepCachesCoherent } from '../../src/background-timers.ts';
import { CacheVersions } from '../../src/core/admin/cache-versions.ts';
import type { GatewayDeps } from '../../src/core/deps.ts';
import { upsertOverride } from '../../src/pricing/catalogue-source.ts';
import { ChannelsRepo } from '../../src/store/repos/channels.ts';
import { PriceGroupsRepo } from '../../src/store/repos/price-groups.ts';
import { freshStore } from '../support/store.ts';
import { until } from '../support/wait.ts';

type Fresh = Awaited<ReturnType<typeof freshStore>>;
const ALL = ['catalogue-changed', 'channels-changed', 'price-groups-changed'];

const moved = async (v: CacheVersions) => (await v.moved()).map((m) => m.kind).sort();
const reloadAll = async (v: CacheVersions) => {
  for (const m of await v.moved()) m.done();
};
const channel = (id: string) => ({ id, name: id, kind: 'dashscope', baseUrl: 'http://x', keyEnc: 'k', models: null });

describe('cache versions', () => {
  let s: Fresh;
  beforeEach(async () => {
    s = await freshStore();
  });
  afterEach(() => s.cleanup());

  it('every cache counts as moved until reloaded; then nothing moves while nothing is written', async () => {
    const v = new CacheVersions(s.store.db);
    expect(await moved(v)).toEqual(ALL);
    await reloadAll(v);
    expect(await moved(v)).toEqual([]);
    expect(await moved(v)).toEqual([]);
    // Another instance's view starts from nothing: it reloads everything once.
    expect(await moved(new CacheVersions(s.store.db))).toEqual(ALL);
  });

  it('each write moves its own table, even one with the same timestamps; a reload not done is asked again', async () => {
    const v = new CacheVersions(s.store.db);
    await reloadAll(v);
    const channels = new ChannelsRepo(s.store.db);
    await channels.create(channel('c1'), 1000);
    expect(await moved(v)).toEqual(['channels-changed']);
    // Not marked done (the reload failed): still moved.
    expect(await moved(v)).toEqual(['channels-changed']);
    await reloadAll(v);
    await channels.update('c1', { weight: 5 }, 1000);
    expect(await moved(v)).toEqual(['channels-changed']);
    await reloadAll(v);
    await s.store.db.deleteFrom('channels').where('id', '=', 'c1').execute();
    expect(await moved(v)).toEqual(['channels-changed']);
    await reloadAll(v);
    await new PriceGroupsRepo(s.store.db).put({ name: 'g', multiplierPpm: 900_000, prices: {} }, 1000);
    expect(await moved(v)).toEqual(['price-groups-changed']);
    await reloadAll(v);
    await upsertOverride(s.store.db, 'qwx3.7-plus', { upstreamModel: 'qwx3.7-plus-0101' });
    expect(await moved(v)).toEqual(['catalogue-changed']);
    await reloadAll(v);
    expect(await moved(v)).toEqual([]);
  });

  it('the periodic refresh reloads a cache only when its table was written', async () => {
    const reloads = { channels: 0, priceGroups: 0 };
    const deps = {
      config: { refreshMs: 10, catalogueFile: undefined },
      cluster: { onEvent: () => undefined },
      logger: { warn: () => undefined },
      store: s.store,
      channels: { reload: async () => void reloads.channels++ },
      priceGroups: { reload: async () => void reloads.priceGroups++ },
      catalogue: undefined,
    } as unknown as GatewayDeps;
    const stop = keepCachesCoherent(deps);
    try {
      await until(() => reloads.channels === 1 && reloads.priceGroups === 1, 'the first refresh reloads everything');
      await new PriceGroupsRepo(s.store.db).put({ name: 'g', multiplierPpm: 900_000, prices: {} });
      await until(() => reloads.priceGroups === 2, 'the price group written is reloaded');
      // The refreshes in between and the one that reloaded the price groups left the channels alone.
      expect(reloads.channels).toBe(1);
      await new ChannelsRepo(s.store.db).create(channel('c2'));
      await until(() => reloads.channels === 2, 'the channel written is reloaded');
      expect(reloads.priceGroups).toBe(2);
    } finally {
      stop();
    }
  });
});
