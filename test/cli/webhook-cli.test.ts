// `tollway webhook …` as an operator runs it, against a real gateway on the suite's dialect: the admin API's
// validation and audit lines, the secret printed once, deliveries listed.
import { describe, expect, it } from 'vitest';
import { okJson, okText, tollway as run } from '../support/cli.ts';
import { useHarness } from '../support/harness.ts';

const ctx = useHarness({ channels: false });
const tollway = (args: string[]) => run(ctx.h, args);
const ok = <T = Record<string, unknown>>(args: string[]) => okJson<T>(ctx.h, args);

describe('tollway webhook', { timeout: 240_000 }, () => {
  it('create / list / update / deliveries / delete, audited; private targets and unknown events refused', async () => {
    const made = await ok<{ id: string; secret: string; enabled: boolean }>([
      'webhook',
      'create',
      '--target',
      'https://hooks.example.com/ops',
      '--events',
      'spend.threshold,breaker.opened',
      '--description',
      'on-call',
    ]);
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.enabled).toBe(true);
    const list = await ok<{ data: Array<{ id: string }>; has_more: boolean }>(['webhook', 'list']);
    expect(list.data.map((w) => w.id)).toEqual([made.id]);
    expect(JSON.stringify(list)).not.toContain(made.secret);
    // The text form: a table with the webhook's row, never its secret.
    const table = await okText(ctx.h, ['webhook', 'list']);
    expect(table.split('\n')[0]).toMatch(/^id\s+url\s+events\s+enabled\s+description$/);
    expect(table).toContain(made.id);
    expect(table).not.toContain(made.secret);
    expect(
      await ok(['webhook', 'update', made.id, '--disable', '--events', 'hold.reaped', '--description', 'none']),
    ).toMatchObject({ enabled: false, events: ['hold.reaped'], description: null });
    expect(await ok(['webhook', 'deliveries', made.id])).toEqual({ data: [], has_more: false });

    const refused = await tollway([
      'webhook',
      'create',
      '--target',
      'http://127.0.0.1:8080/x',
      '--events',
      'hold.reaped',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^tollway: url must be a public address \(not a loopback/);
    const unknown = await tollway([
      'webhook',
      'create',
      '--target',
      'https://hooks.example.com/x',
      '--events',
      'everything',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/events must be a non-empty array/);

    expect(await okText(ctx.h, ['webhook', 'delete', made.id])).toBe(`deleted ${made.id}\n`);
    expect((await tollway(['webhook', 'deliveries', made.id])).code).toBe(1);
    const audit = await ctx.h.store.db
      .selectFrom('audit_log')
      .select(['action', 'target'])
      .where('actor', '=', 'admin')
      .where('action', 'like', 'webhook.%')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => `${a.action} ${a.target}`)).toEqual([
      `webhook.create ${made.id}`,
      `webhook.update ${made.id}`,
      `webhook.delete ${made.id}`,
    ]);
  });
});
