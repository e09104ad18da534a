// `tollway serve` on a fresh data dir with no configuration: demo mode (built-in simulator, demo token,
// generated admin key), then restarts with an admin key and with upstream keys on the same data dir.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { useServeProcesses } from '../support/serve-process.ts';
import { useSimulator } from '../support/simulator.ts';
import { tempDir } from '../support/temp-dir.ts';

const dir = tempDir('tollway-demo-');
const upstream = useSimulator({ taskDurationMs: 300 });
const start = useServeProcesses();

/** Start `tollway serve` on the test's data dir and wait until it prints `waitFor` (in demo mode, the curl line). */
const serve = (extraEnv: Record<string, string>, waitFor: RegExp) =>
  start(
    {
      HOME: process.env.HOME ?? dir,
      TOLLWAY_DATA_DIR: dir,
      TOLLWAY_SIM_TASK_MS: '300',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    waitFor,
  );

const getJson = async (url: string, token: string) => {
  const r = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: r.status, body: (await r.json()) as { data: Array<{ id: string }> } };
};

let demoToken = '';
let generatedAdminKey = '';

describe('demo mode', () => {
  it('no configuration: simulator warning, demo token with a curl line, generated admin key; /v1/models works; SIGTERM exits', async () => {
    // The one variable set is the retired deployment-wide callback key: the start says it is no longer read.
    const s = await serve({ TOLLWAY_CALLBACK_SECRET: 'an-old-shared-callback-key-0123' }, /Try: curl .*\n.*\n.*\n/);
    const text = s.output();
    expect(text).toContain(
      'WARNING: TOLLWAY_CALLBACK_SECRET is no longer used: each token signs its callbacks with its own secret',
    );
    expect(text).toMatch(/DEMO MODE/);
    expect(text).toMatch(/SIMULATOR/);
    demoToken = /Demo token: (tw-\S+)/.exec(text)?.[1] ?? '';
    generatedAdminKey = /Admin key \(generated[^)]*\): (\S+)/.exec(text)?.[1] ?? '';
    expect(demoToken).toMatch(/^tw-/);
    expect(generatedAdminKey.length).toBeGreaterThanOrEqual(16);
    expect(text).toContain(`curl -s ${s.base}/v1/models -H "Authorization: Bearer ${demoToken}"`);

    const models = await getJson(`${s.base}/v1/models`, demoToken);
    expect(models.status).toBe(200);
    const ids = models.body.data.map((m) => m.id);
    expect(ids).toContain('qwx3.7-plus');
    expect(ids).toContain('vidx-v1');
    // the printed chat curl works against the in-process simulator
    const chat = await fetch(`${s.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demoToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(chat.status).toBe(200);
    expect(
      ((await chat.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content.length,
    ).toBeGreaterThan(0);
    expect((await fetch(`${s.base}/healthz`)).status).toBe(200);
    expect((await getJson(`${s.base}/admin/tokens`, generatedAdminKey)).status).toBe(200);

    expect(await s.stop()).toBe(0);
  });

  it('access lines go to stdout (asynchronously), one per request with its request id, all flushed by a graceful stop', async () => {
    const s = await serve({ LOG_LEVEL: 'info' }, /Try: curl /);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${s.base}/v1/models`, { headers: { authorization: `Bearer ${demoToken}` } });
      expect(r.status).toBe(200);
      ids.push(r.headers.get('x-gateway-request-id')!);
    }
    expect(await s.stop()).toBe(0);
    const jsonLines = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    const lines = jsonLines.map(
      (l) => JSON.parse(l) as { msg?: string; request_id?: string; path?: string; status?: number },
    );
    const access = lines.filter((l) => l.msg === 'request' && l.path === '/v1/models');
    expect(access.map((l) => l.request_id)).toEqual(ids);
    expect(access.every((l) => l.status === 200)).toBe(true);
    expect(jsonLines.join('\n')).not.toContain(demoToken); // the banner prints it; log lines never do
    // The admin key generated on the first start is not printed again, only where it is kept.
    expect(s.output()).not.toContain(generatedAdminKey);
    expect(s.output()).toContain(`Admin key: the one in ${dir}/admin-key`);
  });

  it('restart with TOLLWAY_ADMIN_KEY: that key is the admin key, the demo token is kept', async () => {
    const ADMIN = 'operator-chosen-admin-key-0001';
    const s = await serve({ TOLLWAY_ADMIN_KEY: ADMIN }, /Try: curl /);
    const text = s.output();
    expect(text).not.toMatch(/Admin key \(generated/);
    expect(text).not.toContain(ADMIN);
    expect(text).toContain(`Demo token: ${demoToken}`);
    expect((await getJson(`${s.base}/admin/tokens`, ADMIN)).status).toBe(200);
    expect((await getJson(`${s.base}/admin/tokens`, generatedAdminKey)).status).toBe(403);
    expect(await s.stop()).toBe(0);
  });

  it('with upstream keys: no simulator, a channel per configured upstream, demo channels disabled', async () => {
    const s = await serve(
      {
        DASHSCOPE_API_KEY: DEFAULT_SIM_KEYS.dashscopeApiKey,
        DASHSCOPE_BASE_URL: upstream.sim.url,
        TOLLWAY_ADMIN_KEY: 'operator-chosen-admin-key-0001',
      },
      /listening on /,
    );
    // give the process a moment to print anything else it would print after listening
    await new Promise((r) => setTimeout(r, 200));
    const text = s.output();
    expect(text).not.toMatch(/SIMULATOR|DEMO MODE|Demo token/);
    const ch = (await (
      await fetch(`${s.base}/admin/channels`, { headers: { authorization: 'Bearer operator-chosen-admin-key-0001' } })
    ).json()) as {
      data: Array<{ name: string; status: string; base_url: string }>;
    };
    expect(ch.data.find((c) => c.name === 'env-dashscope')).toMatchObject({
      status: 'enabled',
      base_url: upstream.sim.url,
    });
    for (const c of ch.data.filter((x) => x.name.startsWith('demo-'))) expect(c.status).toBe('disabled');
    expect(JSON.stringify(ch)).not.toContain(DEFAULT_SIM_KEYS.dashscopeApiKey);
    const ids = (await getJson(`${s.base}/v1/models`, demoToken)).body.data.map((m) => m.id);
    expect(ids).toContain('qwx3.7-plus');
    expect(ids.some((id) => id.startsWith('vidx-'))).toBe(false);
    expect(await s.stop()).toBe(0);
  });

  it('with upstream keys and no TOLLWAY_ADMIN_KEY: the generated admin key still opens the admin API and is never printed again', async () => {
    const s = await serve(
      { DASHSCOPE_API_KEY: DEFAULT_SIM_KEYS.dashscopeApiKey, DASHSCOPE_BASE_URL: upstream.sim.url },
      /Admin key/,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(s.output()).not.toContain(generatedAdminKey);
    expect(s.output()).toContain(`Admin key: the one in ${dir}/admin-key`);
    expect((await getJson(`${s.base}/admin/tokens`, generatedAdminKey)).status).toBe(200);
    expect(await s.stop()).toBe(0);
  });
});
