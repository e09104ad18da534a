// `tollway simulate` takes its rate limits from TOLLWAY_SIM_*, and keeps a small account's without them.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { useServeProcesses } from '../support/serve-process.ts';

const start = useServeProcesses();
const simulate = (env: Record<string, string>) =>
  start({ HOME: process.env.HOME ?? '/tmp', ...env }, /Upstream SIMULATOR listening/, (port) => [
    'simulate',
    '--port',
    String(port),
  ]);
const quota = async (base: string, model: string) => {
  const r = await fetch(`${base}/api/v1/quotas?model=${model}`, {
    headers: { authorization: `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}` },
  });
  return (
    (await r.json()) as {
      output: { quotas: Array<{ model_limit: { request_limit: number | null; usage_limit: number | null } }> };
    }
  ).output.quotas[0]!.model_limit;
};

describe('tollway simulate: rate limits', () => {
  it("a small account's limits by default; TOLLWAY_SIM_RPM / _TPM / _MODEL_LIMITS set them", async () => {
    // The harness's generous settings are replaced by empty ones: the defaults.
    const plain = await simulate({ TOLLWAY_SIM_RPM: '', TOLLWAY_SIM_TPM: '', TOLLWAY_SIM_KLING_RPM: '' });
    expect(await quota(plain.base, 'qwen3.7-plus')).toMatchObject({ request_limit: 300, usage_limit: 300_000 });
    await plain.stop();

    const set = await simulate({
      TOLLWAY_SIM_RPM: '1',
      TOLLWAY_SIM_TPM: '0',
      TOLLWAY_SIM_MODEL_LIMITS: '{"text-embedding-v4": {"rpm": 7}}',
    });
    expect(await quota(set.base, 'qwen3.7-plus')).toMatchObject({ request_limit: 1, usage_limit: null });
    expect(await quota(set.base, 'text-embedding-v4')).toMatchObject({ request_limit: 7 });
    const chat = () =>
      fetch(`${set.base}/compatible-mode/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'qwen3.7-plus', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
    await set.stop();
  });
});
