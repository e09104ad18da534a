// GET /admin/channel-kinds: every upstream's kind with the key fields it declares (what a create body takes) and the
// catalogue's models it serves; no key value in it.
import { describe, expect, it } from 'vitest';
import { DECLARED_UPSTREAMS } from '../../../src/adapters/upstream-kinds.ts';
import { useHarness } from '../../support/harness.ts';

type Kind = {
  kind: string;
  default_base_url: string;
  key_fields: Array<{ field: string; secret: boolean }>;
  models: string[];
};

describe('channel kinds', () => {
  const t = useHarness({ channels: false });

  it('lists each declared upstream with its key fields and models', async () => {
    const r = await t.h.admin('/admin/channel-kinds');
    expect(r.status).toBe(200);
    const { data } = (await r.json()) as { data: Kind[] };
    expect(data.map((k) => k.kind)).toEqual(DECLARED_UPSTREAMS.map((u) => u.kind));
    const kling = data.find((k) => k.kind === 'kling')!;
    expect(kling.key_fields).toEqual([
      { field: 'access_key', secret: false },
      { field: 'secret_key', secret: true },
    ]);
    expect(kling.default_base_url).toBe('https://api-beijing.klingai.com');
    const dashscope = data.find((k) => k.kind === 'dashscope')!;
    expect(dashscope.key_fields).toEqual([{ field: 'api_key', secret: false }]);
    // Each kind lists the models a channel of it may name, and only those.
    for (const k of data) {
      expect(k.models.length).toBeGreaterThan(0);
      for (const m of k.models) expect(t.h.gw.deps.catalogue.resolve(m)?.entry.upstream).toBe(k.kind);
    }
  });

  it('the key fields it names are what a create body takes', async () => {
    const { data } = (await (await t.h.admin('/admin/channel-kinds')).json()) as { data: Kind[] };
    const d = data.find((k) => k.kind === 'dashscope')!;
    const body: Record<string, unknown> = { name: 'kinds-test', kind: d.kind, models: [d.models[0]] };
    for (const f of d.key_fields) body[f.field] = 'sk-kinds-test-0001';
    const r = await t.h.admin('/admin/channels', { method: 'POST', json: body });
    expect(r.status).toBe(201);
    const made = (await r.json()) as { base_url: string; keys: Record<string, string | null> };
    expect(made.base_url).toBe(d.default_base_url);
    expect(Object.keys(made.keys)).toEqual(d.key_fields.map((f) => f.field));
    expect(JSON.stringify(made)).not.toContain('sk-kinds-test-0001');
  });
});
