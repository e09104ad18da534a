// The serving process: config → secrets → simulator (demo) → start (process-life.ts) → channels → listen → signals.
import { CALL_FIRST_BYTE_MS } from './adapters/kling/client.ts';
import type { Simulator } from '../simulator/index.ts';
import { resolveSecrets } from './bootstrap.ts';
import { reportUnwritten, SHUTDOWN_WRITES_MS } from './final-writes.ts';
import { startGateway, type Gateway } from './process-life.ts';
import { isDemoMode, type Config } from './config/config.ts';
import { simLimitOptions } from './config/sim-env.ts';
import { disableChannelsNamed, ensureChannel, provisionEnvChannels } from './core/admin/channels.ts';
import { demoToken } from './core/admin/tokens.ts';
import type { GatewayDeps } from './core/deps.ts';
import { tuneHeap } from './runtime/heap.ts';

type DemoUpstream = { sim: Simulator; keys: typeof import('../simulator/index.ts')['DEFAULT_SIM_KEYS'] };

const out = (s: string) => process.stderr.write(`${s}\n`);

/** Demo mode: the built-in simulator, loaded only then (a production gateway does not carry its code in memory). */
async function startDemoUpstream(config: Config): Promise<DemoUpstream | null> {
  if (!isDemoMode(config)) return null;
  const simulator = await import('../simulator/index.ts');
  const sim = await simulator.startSimulator({
    port: config.simPort,
    taskDurationMs: config.simTaskMs,
    ...simLimitOptions(config.simLimits),
  });
  config.trustedResultOrigins.push(new URL(sim.url).origin);
  return { sim, keys: simulator.DEFAULT_SIM_KEYS };
}

/** The simulator's channels in demo mode; otherwise those from the environment (and no demo channel left enabled). */
async function provisionChannels(deps: GatewayDeps, config: Config, demo: DemoUpstream | null): Promise<void> {
  if (demo) {
    await ensureChannel(deps, 'demo-dashscope', 'dashscope', demo.sim.url, { apiKey: demo.keys.dashscopeApiKey });
    await ensureChannel(deps, 'demo-kling', 'kling', demo.sim.url, {
      accessKey: demo.keys.klingAccessKey,
      secretKey: demo.keys.klingSecretKey,
    });
    return;
  }
  await disableChannelsNamed(deps, 'demo-');
  await provisionEnvChannels(deps, config);
}

function warnings(deps: GatewayDeps, config: Config): void {
  for (const c of deps.channels.all()) {
    if (!c.keys.apiKey && !c.keys.secretKey)
      out(
        `WARNING: channel '${c.name}' has no readable key (was TOLLWAY_SECRET changed?); its requests will fail until the key is set again.`,
      );
  }
  if (deps.store.dialect === 'postgres' && (!config.secret || !config.adminKey)) {
    // Each instance would generate its own: channel keys sealed by one could not be read by another.
    out(
      'WARNING: on PostgreSQL (shared by several instances) set TOLLWAY_SECRET and TOLLWAY_ADMIN_KEY explicitly, the same on every instance.',
    );
  }
  if (config.callbacks.retiredSecretSet) {
    // Its receivers no longer verify with it: the operator must hand each client its token's own secret.
    out(
      "WARNING: TOLLWAY_CALLBACK_SECRET is no longer used: each token signs its callbacks with its own secret (docs/api.md, Callbacks). Unset it and give each client its token's callback secret (tollway token rotate-callback-secret ID).",
    );
  }
  if (config.tasks.leaseMs <= CALL_FIRST_BYTE_MS) {
    // The lease is also a task's submit deadline: a creation still waiting for its answer past it is taken for lost.
    out(
      `WARNING: TOLLWAY_TASK_LEASE_MS (${config.tasks.leaseMs} ms) is not above the ${CALL_FIRST_BYTE_MS} ms a task creation may wait for the upstream; a slow creation may be failed as lost.`,
    );
  }
}

function demoBanner(base: string, simUrl: string, token: string): void {
  out('');
  out('*** DEMO MODE: no upstream keys configured. The upstream is the BUILT-IN SIMULATOR, not a real provider. ***');
  out(
    `*** Simulator: ${simUrl}  (set DASHSCOPE_API_KEY / KLING_ACCESS_KEY+KLING_SECRET_KEY to use real upstreams) ***`,
  );
  out('');
  out(`Demo token: ${token}`);
  out(`Try: curl -s ${base}/v1/models -H "Authorization: Bearer ${token}"`);
  out(
    `     curl -s ${base}/v1/chat/completions -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" \\`,
  );
  out(`       -d '{"model":"qwx3.7-plus","messages":[{"role":"user","content":"Hello"}]}'`);
  out('');
}

function closeOnSignals(gw: Gateway, demo: DemoUpstream | null, drainMs: number): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    out(`${signal}: draining in-flight requests…`);
    // Bounded: the drain (cut at drainMs), then the final writes (SHUTDOWN_WRITES_MS); a stuck stream or a store that
    // never answers must not keep the process alive forever. What is still queued then is on the log before exit.
    setTimeout(() => {
      reportUnwritten(gw.deps);
      process.exit(1); // the log sink writes what it holds on exit (runtime/log-sink.ts)
    }, drainMs + SHUTDOWN_WRITES_MS).unref();
    await gw.close();
    await demo?.sim.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

export async function serve(config: Config): Promise<void> {
  tuneHeap(config.heapGrowingPercent);
  const { adminKey, adminKeyFrom, secret } = resolveSecrets(config);
  const demo = await startDemoUpstream(config);
  const gw = await startGateway(config, { adminKey, secret });
  const { deps } = gw;
  await provisionChannels(deps, config, demo);
  const address = await gw.app.listen({ port: config.port, host: config.host });
  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${new URL(address).port}`;
  out(`\nTollway gateway listening on ${base} (store: ${deps.store.dialect})`);
  if (adminKeyFrom === 'created')
    out(`Admin key (generated, kept in ${config.dataDir}/admin-key; shown this once): ${adminKey}`);
  else if (adminKeyFrom === 'file')
    out(`Admin key: the one in ${config.dataDir}/admin-key (shown when it was generated)`);
  if (config.console.enabled) out(`Operator console: ${base}/console (sign in with the admin key)`);
  warnings(deps, config);
  if (demo) demoBanner(base, demo.sim.url, await demoToken(deps, config.dataDir));
  closeOnSignals(gw, demo, config.drainMs);
}
