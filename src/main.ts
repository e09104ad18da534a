// Wiring only: config → secrets → simulator (demo) → gateway → channels → listen.
import type { Simulator } from '../simulator/index.ts';
import { demoToken, disableChannelsNamed, ensureChannel, provisionEnvChannels, resolveSecrets } from './bootstrap.ts';
import { isDemoMode, type Config } from './config/config.ts';
import { createGateway } from './gateway.ts';
import { closeSharedSafeNet } from './net/index.ts';
import { tuneHeap } from './runtime/heap.ts';

export async function serve(config: Config): Promise<void> {
  tuneHeap(config.heapGrowingPercent);
  const { adminKey, adminKeyGenerated, secret } = resolveSecrets(config);
  const demo = isDemoMode(config);
  let sim: Simulator | null = null;
  // The simulator is loaded only in demo mode: a production gateway does not carry its code in memory.
  const simulator = demo ? await import('../simulator/index.ts') : null;
  const DEFAULT_SIM_KEYS = simulator?.DEFAULT_SIM_KEYS;
  if (simulator) {
    sim = await simulator.startSimulator({ port: config.simPort, taskDurationMs: config.simTaskMs });
    config.trustedResultOrigins.push(new URL(sim.url).origin);
  }
  const gw = await createGateway(config, { adminKey, secret });
  const { deps } = gw;
  if (sim && DEFAULT_SIM_KEYS) {
    await ensureChannel(deps, 'demo-dashscope', 'dashscope', sim.url, { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey });
    await ensureChannel(deps, 'demo-kling', 'kling', sim.url, { accessKey: DEFAULT_SIM_KEYS.klingAccessKey, secretKey: DEFAULT_SIM_KEYS.klingSecretKey });
  } else {
    await disableChannelsNamed(deps, 'demo-');
    await provisionEnvChannels(deps, config);
  }
  const address = await gw.app.listen({ port: config.port, host: config.host });
  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${new URL(address).port}`;
  const out = (s: string) => process.stderr.write(`${s}\n`);
  out(`\nTollway gateway listening on ${base} (store: ${deps.store.dialect})`);
  if (adminKeyGenerated) out(`Admin key (generated, kept in ${config.dataDir}/admin-key): ${adminKey}`);
  for (const c of deps.channels.all()) {
    if (!c.keys.apiKey && !c.keys.secretKey) out(`WARNING: channel '${c.name}' has no readable key (was TOLLWAY_SECRET changed?); its requests will fail until the key is set again.`);
  }
  if (deps.store.dialect === 'postgres' && (!config.secret || !config.adminKey)) {
    // Each instance would generate its own: channel keys sealed by one could not be read by another.
    out('WARNING: on PostgreSQL (shared by several instances) set TOLLWAY_SECRET and TOLLWAY_ADMIN_KEY explicitly, the same on every instance.');
  }
  if (sim) {
    const token = await demoToken(deps, config);
    out('');
    out('*** DEMO MODE: no upstream keys configured. The upstream is the BUILT-IN SIMULATOR, not a real provider. ***');
    out(`*** Simulator: ${sim.url}  (set DASHSCOPE_API_KEY / KLING_ACCESS_KEY+KLING_SECRET_KEY to use real upstreams) ***`);
    out('');
    out(`Demo token: ${token}`);
    out(`Try: curl -s ${base}/v1/models -H "Authorization: Bearer ${token}"`);
    out(`     curl -s ${base}/v1/chat/completions -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" \\`);
    out(`       -d '{"model":"qwx3.7-plus","messages":[{"role":"user","content":"Hello"}]}'`);
    out('');
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    out(`${signal}: draining in-flight requests…`);
    // Bounded drain: a stuck stream must not keep the process alive forever.
    setTimeout(() => process.exit(1), config.drainMs).unref();
    await gw.close();
    await closeSharedSafeNet();
    await sim?.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
