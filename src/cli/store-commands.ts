// The commands that run on this host rather than through the admin API: `serve` (the gateway itself), `migrate`
// (the store's schema, before any gateway runs on it) and `simulate` (the upstream simulator alone). They read the
// gateway's configuration from the environment; their code is loaded only when they run.
import type { Command } from 'commander';
import { num } from './args.ts';
import { UsageError } from './client.ts';
import type { Ctx } from './command.ts';

export function storeCommands(program: Command, ctx: Ctx): void {
  program
    .command('serve')
    .description('run the gateway (the default command)')
    .action(async () => {
      const [{ loadConfig }, { serve }] = await Promise.all([import('../config/config.ts'), import('../main.ts')]);
      await serve(loadConfig(ctx.io.env));
      ctx.exit = -1; // keep running
    });

  program
    .command('migrate')
    .description("apply the database migrations (opens DATABASE_URL directly: the admin API's store)")
    .option('--json', 'print {"migrated": true, "dialect": …}')
    .action(async (opts: { json?: boolean }) => {
      const [{ loadConfig }, { openStore }] = await Promise.all([
        import('../config/config.ts'),
        import('../store/store.ts'),
      ]);
      const store = await openStore(loadConfig(ctx.io.env).databaseUrl);
      await store.close();
      ctx.io.out(
        opts.json
          ? JSON.stringify({ migrated: true, dialect: store.dialect }, null, 2)
          : `migrations applied (${store.dialect})`,
      );
      ctx.exit = 0;
    });

  program
    .command('simulate')
    .description('run the upstream simulator alone (not a real provider)')
    .option('--port <n>', 'its port (default 9090)')
    .option('--task-ms <ms>', 'how long a video task takes (default 5000)')
    .option('--host <host>', 'its address (default 127.0.0.1)')
    .option('--public-url <url>', 'the address in its result URLs')
    .action(async (opts: { port?: string; taskMs?: string; host?: string; publicUrl?: string }) => {
      const publicUrl = opts.publicUrl;
      if (publicUrl !== undefined && !/^https?:\/\/[^/]/.test(publicUrl))
        throw new UsageError(`--public-url must be an http(s) URL, got "${publicUrl}"`);
      const [{ loadConfig }, { simLimitOptions }, { startSimulator }] = await Promise.all([
        import('../config/config.ts'),
        import('../config/sim-env.ts'),
        import('../../simulator/index.ts'),
      ]);
      const config = loadConfig(ctx.io.env);
      const host = opts.host ?? '127.0.0.1';
      const sim = await startSimulator({
        port: num('--port', opts.port) ?? 9090,
        host,
        taskDurationMs: num('--task-ms', opts.taskMs) ?? 5000,
        ...simLimitOptions(config.simLimits),
        ...(publicUrl ? { publicUrl } : {}),
      });
      ctx.io.err(
        `Upstream SIMULATOR listening on ${host}:${sim.port}, results at ${sim.url} (DashScope + Kling wire protocols; not a real provider)`,
      );
      // As a container's PID 1 (`docker run … simulate`, the compose file's simulator) a signal without a handler
      // is ignored, so `docker stop` would wait for its timeout and kill.
      for (const signal of ['SIGTERM', 'SIGINT'] as const)
        process.once(signal, () => void sim.close().then(() => process.exit(0)));
      ctx.exit = -1;
    });
}
