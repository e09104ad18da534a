// The store's channels, on whichever dialect TOLLWAY_TEST_DIALECT selects: round-trips, unique ids and names, keys
// stored encrypted.
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { createChannel } from '../../src/core/admin/channels.ts';
import { ChannelRegistry } from '../../src/routing/channel-registry.ts';
import { ChannelsRepo } from '../../src/store/repos/channels.ts';
import { isUniqueViolation } from '../../src/store/store-errors.ts';
import { testDialect, useStore } from '../support/store.ts';

const fresh = useStore();

const CANARY_KEY = 'sk-STORE-CANARY-abcdef123456';

describe(`store on ${testDialect()}`, () => {
  describe('channels', () => {
    it('create / get / list / setStatus / update / findByName', async () => {
      const repo = new ChannelsRepo(fresh.store.db);
      const rec = await repo.create(
        {
          id: 'ch_crud',
          name: 'crud-ch',
          kind: 'dashscope',
          baseUrl: 'https://dashscope.aliyuncs.com',
          keyEnc: 'v1:x:y:z',
          models: ['qwx3.7-plus'],
          priority: 5,
        },
        1_000,
      );
      expect(rec).toMatchObject({
        id: 'ch_crud',
        status: 'enabled',
        priority: 5,
        weight: 1,
        models: ['qwx3.7-plus'],
        createdAt: 1_000,
      });
      expect(await repo.get('ch_crud')).toEqual(rec);
      expect((await repo.findByName('crud-ch'))?.id).toBe('ch_crud');
      expect(await repo.findByName('nope')).toBeNull();
      expect(await repo.setStatus('ch_crud', 'disabled', 2_000)).toBe(true);
      expect(await repo.get('ch_crud')).toMatchObject({ status: 'disabled', updatedAt: 2_000 });
      expect(await repo.setStatus('ch_missing', 'disabled')).toBe(false);
      await repo.update('ch_crud', { baseUrl: 'https://dashscope.aliyuncs.com/x', models: null }, 3_000);
      expect(await repo.get('ch_crud')).toMatchObject({
        baseUrl: 'https://dashscope.aliyuncs.com/x',
        models: null,
        updatedAt: 3_000,
        keyEnc: 'v1:x:y:z',
      });
      expect((await repo.list()).map((c) => c.id)).toContain('ch_crud');
    });

    it('unique: channel ids and names are unique', async () => {
      const repo = new ChannelsRepo(fresh.store.db);
      await repo.create({
        id: 'ch_u1',
        name: 'uniq-name',
        kind: 'kling',
        baseUrl: 'https://api-beijing.klingai.com',
        keyEnc: 'v1:a:b:c',
        models: null,
      });
      const dupId = await repo
        .create({
          id: 'ch_u1',
          name: 'other-name',
          kind: 'kling',
          baseUrl: 'https://api-beijing.klingai.com',
          keyEnc: 'v1:a:b:c',
          models: null,
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(dupId)).toBe(true);
      const dupName = await repo
        .create({
          id: 'ch_u2',
          name: 'uniq-name',
          kind: 'kling',
          baseUrl: 'https://api-beijing.klingai.com',
          keyEnc: 'v1:a:b:c',
          models: null,
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isUniqueViolation(dupName)).toBe(true);
    });

    it('keys are stored encrypted: the raw key never appears in the channels table, and decrypts back', async () => {
      const repos = { channels: new ChannelsRepo(fresh.store.db) };
      const box = new SecretBox('store-test-secret-0123456789');
      const registry = new ChannelRegistry(repos.channels, box);
      const rec = await createChannel(
        { repos: repos as never, box, applyChange: () => registry.reload() },
        {
          name: 'enc',
          kind: 'dashscope',
          baseUrl: 'https://dashscope.aliyuncs.com',
          keys: { apiKey: CANARY_KEY },
          models: null,
        },
      );
      const rows = await fresh.store.db.selectFrom('channels').selectAll().execute();
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(CANARY_KEY);
      expect(dump).not.toContain('STORE-CANARY');
      expect(rows.find((r) => r.id === rec.id)?.key_enc).toMatch(/^v1:/);
      // The registry (enabled channels in memory) decrypts it for use upstream.
      expect(registry.get(rec.id)?.keys.apiKey).toBe(CANARY_KEY);
      // A different secret cannot read it.
      expect(() =>
        new SecretBox('another-secret-0123456789').open(rows.find((r) => r.id === rec.id)!.key_enc),
      ).toThrow();
    });
  });
});
