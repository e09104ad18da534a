// The image's health probe (src/healthcheck.ts), run as the container runs it: healthy when the gateway's /healthz
// on PORT answers OK, or — in a container running the simulator — when the simulator's health answers on its port;
// unhealthy when neither does (a gateway answering 503, or nothing listening).
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { GENEROUS_SIM_LIMITS } from './support/simulator.ts';

const SCRIPT = join(import.meta.dirname, '..', 'src', 'healthcheck.ts');
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A port nothing listens on: one just released. */
async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function gatewayAnswering(status: number): Promise<number> {
  const s = http.createServer((req, res) => res.writeHead(req.url === '/healthz' ? status : 404).end());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => s.close(() => r())));
  return (s.address() as AddressInfo).port;
}

function probe(port: number, simPort: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, String(simPort)], {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    child.on('exit', (code) => resolve(code));
  });
}

describe('the container health probe', () => {
  it("is healthy when the gateway's /healthz answers OK, and not when it answers 503 with no simulator there", async () => {
    const none = await freePort();
    expect(await probe(await gatewayAnswering(200), none)).toBe(0);
    expect(await probe(await gatewayAnswering(503), none)).toBe(1);
    expect(await probe(await freePort(), none)).toBe(1);
  });

  it('is healthy in a simulator container: nothing on PORT, the simulator answering on its port', async () => {
    const sim: Simulator = await startSimulator({ port: 0, ...GENEROUS_SIM_LIMITS });
    closers.push(() => sim.close());
    expect(await probe(await freePort(), sim.port)).toBe(0);
  });
});
