// In-flight slots in Redis outlive no gateway: `tollway serve` as a child process with REDIS_URL holds a token's
// every slot (concurrency 2, two slow calls in flight) when it is SIGKILLed; a new process on the same store and
// Redis admits the token's calls again within seconds (the dead instance's lease ends), and still refuses a call
// past the limit while its own calls hold the slots. Store-independent: runs once, in the SQLite pass, with Redis.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { useServeProcesses, type ServeProcess } from '../support/serve-process.ts';
import { useSimulator } from '../support/simulator.ts';
import { testDialect } from '../support/store.ts';
import { tempDir } from '../support/temp-dir.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const ADMIN = 'slots-admin-key-0123456789abcdef';
const dir = tempDir('tollway-slots-');
const upstream = useSimulator();
const start = useServeProcesses();

function serve(): Promise<ServeProcess> {
  return start({
    HOME: process.env.HOME ?? dir,
    TOLLWAY_DATA_DIR: dir,
    DATABASE_URL: `sqlite:${join(dir, 'slots.db')}`,
    REDIS_URL: redisUrl!,
    TOLLWAY_ADMIN_KEY: ADMIN,
    TOLLWAY_SECRET: 'slots-secret-0123456789abcdefghij',
    DASHSCOPE_API_KEY: DEFAULT_SIM_KEYS.dashscopeApiKey,
    DASHSCOPE_BASE_URL: upstream.sim.url,
    LOG_LEVEL: 'warn',
  });
}

const chat = (base: string, token: string, content: string) =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwx3.7-plus', messages: [{ role: 'user', content }] }),
  });

/** Until the simulator holds `n` calls whose text has `marker` (the slow calls are in flight). */
async function inFlight(marker: string, n: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (upstream.sim.requestsTo('chat/completions').filter((r) => JSON.stringify(r.body).includes(marker)).length >= n)
      return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the upstream never held ${n} calls marked ${marker}`);
}

describe.runIf(redisUrl && testDialect() === 'sqlite')(
  'concurrency slots of a SIGKILLed gateway (Redis)',
  { timeout: 60_000 },
  () => {
    it('are freed within seconds of the kill; the limit still holds for the live instance', async () => {
      const g1 = await serve();
      const made = await fetch(`${g1.base}/admin/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'two-slots', concurrency_limit: 2 }),
      });
      expect(made.status).toBe(201);
      const { token } = (await made.json()) as { token: string };

      // Both slots taken by calls the upstream holds for a minute; the third is refused.
      const held = [
        chat(g1.base, token, 'held-a sim-fault:delay:60000'),
        chat(g1.base, token, 'held-b sim-fault:delay:60000'),
      ];
      for (const h of held) h.catch(() => undefined);
      await inFlight('held-', 2);
      const third = await chat(g1.base, token, 'third');
      expect(third.status).toBe(429);
      expect(((await third.json()) as { error: { code: string } }).error.code).toBe('concurrency_limited');

      g1.child.kill('SIGKILL');
      await g1.exited;
      const g2 = await serve();
      const killedAt = Date.now();

      // Admitted again once the dead instance's lease ends (seconds), not when a counter's TTL does (minutes).
      let status = 429;
      while (status === 429 && Date.now() - killedAt < 20_000) {
        const r = await chat(g2.base, token, 'after the kill');
        status = r.status;
        await r.text();
        if (status === 429) await new Promise((r) => setTimeout(r, 250));
      }
      expect(status).toBe(200);

      // The live instance's own slots still count.
      const again = [
        chat(g2.base, token, 'again-a sim-fault:delay:60000'),
        chat(g2.base, token, 'again-b sim-fault:delay:60000'),
      ];
      for (const h of again) h.catch(() => undefined);
      await inFlight('again-', 2);
      const over = await chat(g2.base, token, 'over');
      expect(over.status).toBe(429);
      await over.text();
      g2.child.kill('SIGKILL');
      await g2.exited;
    });
  },
);
