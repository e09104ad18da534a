// Which upstream account a channel is: the operator's name when given (channels naming one account share its limits),
// else the key itself, never shown.
import { describe, expect, it } from 'vitest';
import { upstreamAccountOf } from '../../src/routing/upstream-account.ts';
import { useHarness } from '../support/harness.ts';

describe('upstreamAccountOf', () => {
  it('channels naming one account share it; unnamed, two channels with one key are one account, two keys two', () => {
    const ch = (account: string | null, apiKey: string) => ({
      kind: 'dashscope' as const,
      upstreamAccount: account,
      keys: { apiKey },
    });
    expect(upstreamAccountOf(ch('acme', 'sk-a'))).toBe(upstreamAccountOf(ch('acme', 'sk-b')));
    expect(upstreamAccountOf(ch(null, 'sk-a'))).toBe(upstreamAccountOf(ch(null, 'sk-a')));
    expect(upstreamAccountOf(ch(null, 'sk-a'))).not.toBe(upstreamAccountOf(ch(null, 'sk-b')));
    expect(upstreamAccountOf(ch(null, 'sk-secret-key'))).not.toContain('sk-secret-key');
    // The same name on two upstreams is two accounts.
    expect(upstreamAccountOf({ kind: 'kling', upstreamAccount: 'acme', keys: { accessKey: 'x' } })).not.toBe(
      upstreamAccountOf(ch('acme', 'x')),
    );
  });

  it('unnamed, the account is the key its upstream says names it (Kling: the access key, not the secret key)', () => {
    const kling = (accessKey: string, secretKey: string) => ({
      kind: 'kling' as const,
      upstreamAccount: null,
      keys: { accessKey, secretKey },
    });
    expect(upstreamAccountOf(kling('ak-1', 'sk-1'))).toBe(upstreamAccountOf(kling('ak-1', 'sk-2')));
    expect(upstreamAccountOf(kling('ak-1', 'sk-1'))).not.toBe(upstreamAccountOf(kling('ak-2', 'sk-1')));
  });
});

describe("a channel's account and task slots through the admin API", () => {
  const t = useHarness();
  it('created, changed, cleared and validated; shown in the view and the audit line', async () => {
    const r = await t.h.admin('/admin/channels', {
      method: 'POST',
      json: { name: 'acct-1', kind: 'kling', access_key: 'ak', secret_key: 'sk', account: 'acme-kling', task_slots: 2 },
    });
    expect(r.status).toBe(201);
    const c = (await r.json()) as { id: string; account: string | null; task_slots: number | null };
    expect(c).toMatchObject({ account: 'acme-kling', task_slots: 2 });
    const p = await t.h.admin(`/admin/channels/${c.id}`, { method: 'PATCH', json: { account: null, task_slots: 5 } });
    expect(p.status).toBe(200);
    expect(await p.json()).toMatchObject({ account: null, task_slots: 5 });
    for (const bad of [{ account: 'has space' }, { account: '' }, { task_slots: 0 }, { task_slots: 'two' }]) {
      const b = await t.h.admin(`/admin/channels/${c.id}`, { method: 'PATCH', json: bad });
      expect(b.status).toBe(400);
    }
    const audit = (await (await t.h.admin('/admin/audit?limit=100')).json()) as {
      data: Array<{ action: string; target: string; detail: { changes?: Record<string, unknown> } }>;
    };
    const line = audit.data.find((a) => a.action === 'channel.update' && a.target === c.id)!;
    expect(line.detail.changes).toMatchObject({
      account: { from: 'acme-kling', to: null },
      taskSlots: { from: 2, to: 5 },
    });
  });
});
