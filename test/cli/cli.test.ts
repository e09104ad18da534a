// The `tollway` CLI as an operator runs it (bin/tollway.mjs → tsx). Spawning is slow (~1 s), so few tests.
// Always SQLite: these test the CLI, the store suite covers both dialects.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSecrets } from '../../src/bootstrap.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createGateway } from '../../src/gateway.ts';
import { TOLLWAY_BIN } from '../support/serve-process.ts';
import { tempDir } from '../support/temp-dir.ts';

const KEY_CANARY = 'sk-CLI-CANARY-0123456789abcdef';
const dir = tempDir('tollway-cli-');
const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, TOLLWAY_DATA_DIR: dir };

function tollway(args: string[], extraEnv: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [TOLLWAY_BIN, ...args], { env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Each test runs the CLI several times (spawnSync, up to 60 s each): under a loaded machine the default 30 s is too short.
describe('tollway CLI', { timeout: 180_000 }, () => {
  it('a bad configuration value stops it with one clear line and a non-zero exit', () => {
    const r = tollway(['migrate'], { PORT: 'eighty' });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('tollway: configuration error: PORT must be an integer, got "eighty"');
    const r2 = tollway(['migrate'], { DASHSCOPE_BASE_URL: 'https://dashscope-intl.aliyuncs.com' });
    expect(r2.code).not.toBe(0);
    expect(r2.stderr.trim().split('\n')).toHaveLength(1);
    expect(r2.stderr).toMatch(/^tollway: configuration error: DASHSCOPE_BASE_URL points at dashscope-intl\.aliyuncs\.com/);
  });

  it('migrate applies the migrations', () => {
    const r = tollway(['migrate']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/migrations applied \(sqlite\)/);
  });

  it('channel add / channel list never print keys; token create prints the token once and it authenticates', async () => {
    const add = tollway(['channel', 'add', '--name', 'cli-ds', '--kind', 'dashscope', '--base-url', 'http://127.0.0.1:9', '--api-key', KEY_CANARY, '--models', 'qwx3.7-plus,text-embedding-v4']);
    expect(add.code).toBe(0);
    expect(add.stdout + add.stderr).not.toContain(KEY_CANARY);
    expect(JSON.parse(add.stdout)).toMatchObject({ name: 'cli-ds', kind: 'dashscope', status: 'enabled' });

    const list = tollway(['channel', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('cli-ds');
    expect(list.stdout + list.stderr).not.toContain(KEY_CANARY);

    const created = tollway(['token', 'create', '--name', 'x', '--models', 'qwx3.7-plus,text-embedding-v4', '--quota', '5']);
    expect(created.code).toBe(0);
    const token = /token:\s+(\S+)/.exec(created.stdout)?.[1];
    expect(token).toMatch(/^tw-/);
    expect(created.stdout.split(token!).length - 1).toBe(1);

    const tokens = tollway(['token', 'list']);
    expect(tokens.code).toBe(0);
    expect(tokens.stdout).toContain('"name": "x"');
    expect(tokens.stdout).not.toContain(token!);

    // The printed token authenticates against a gateway on the same database and data dir.
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const { adminKey, secret } = resolveSecrets(config);
    const gw = await createGateway(config, { adminKey, secret });
    try {
      const r = await gw.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${token}` } });
      expect(r.statusCode).toBe(200);
      expect((r.json() as { data: Array<{ id: string }> }).data.map((m) => m.id)).toEqual(['qwx3.7-plus', 'text-embedding-v4']);
      const p = await gw.deps.tokenAuth.authenticate(token);
      expect(p.quota).toBe(5);
      // the CLI-added channel decrypts to the key given on the command line
      expect(gw.deps.channels.all().find((c) => c.name === 'cli-ds')?.keys.apiKey).toBe(KEY_CANARY);
    } finally {
      await gw.close();
    }
  });
});
