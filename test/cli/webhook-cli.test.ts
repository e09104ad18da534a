// `tollway webhook …` as an operator runs it, on the suite's dialect: the same validation and audit lines as
// /admin/webhooks, the secret printed once, deliveries listed.
import { beforeAll, describe, expect, it } from 'vitest';
import { runProcess, type Ran } from '../support/run-process.ts';
import { TOLLWAY_BIN } from '../support/serve-process.ts';
import { useStore } from '../support/store.ts';
import { tempDir } from '../support/temp-dir.ts';

const dir = tempDir('tollway-cli-webhooks-');
const fresh = useStore();
let env: Record<string, string>;

beforeAll(() => {
  const databaseUrl = fresh.pgSchema
    ? `${fresh.url}?options=${encodeURIComponent(`-c search_path=${fresh.pgSchema}`)}`
    : fresh.url;
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATABASE_URL: databaseUrl,
    TOLLWAY_DATA_DIR: dir,
  };
});

function tollway(args: string[]): Promise<Ran> {
  return runProcess(process.execPath, [TOLLWAY_BIN, ...args], { env, timeoutMs: 60_000 });
}

async function ok(args: string[]): Promise<unknown> {
  const r = await tollway(args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.startsWith('{') ? JSON.parse(r.stdout) : r.stdout;
}

describe('tollway webhook', { timeout: 240_000 }, () => {
  it('create / list / update / deliveries / delete, audited; private targets and unknown events refused', async () => {
    const made = (await ok([
      'webhook',
      'create',
      '--url',
      'https://hooks.example.com/ops',
      '--events',
      'spend.threshold,breaker.opened',
      '--description',
      'on-call',
    ])) as { id: string; secret: string; enabled: boolean };
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.enabled).toBe(true);
    const list = (await ok(['webhook', 'list'])) as { data: Array<{ id: string; secret?: string }>; has_more: boolean };
    expect(list.data.map((w) => w.id)).toEqual([made.id]);
    expect(JSON.stringify(list)).not.toContain(made.secret);
    expect(
      await ok(['webhook', 'update', made.id, '--disable', '--events', 'hold.reaped', '--description', 'none']),
    ).toMatchObject({
      enabled: false,
      events: ['hold.reaped'],
      description: null,
    });
    expect(await ok(['webhook', 'deliveries', made.id])).toEqual({ data: [], has_more: false });

    const refused = await tollway(['webhook', 'create', '--url', 'http://127.0.0.1:8080/x', '--events', 'hold.reaped']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^tollway: url must be a public address \(not a loopback/);
    const unknown = await tollway([
      'webhook',
      'create',
      '--url',
      'https://hooks.example.com/x',
      '--events',
      'everything',
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/events must be a non-empty array/);

    expect(await ok(['webhook', 'delete', made.id])).toBe(`deleted ${made.id}\n`);
    expect((await tollway(['webhook', 'deliveries', made.id])).code).toBe(1);
    const audit = await fresh.store.db
      .selectFrom('audit_log')
      .select(['action', 'target'])
      .where('actor', '=', 'cli')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => `${a.action} ${a.target}`)).toEqual([
      `webhook.create ${made.id}`,
      `webhook.update ${made.id}`,
      `webhook.delete ${made.id}`,
    ]);
  });
});
