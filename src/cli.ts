#!/usr/bin/env node
// tollway serve | migrate | token create|list|revoke | channel add|list|disable | simulate
import { parseArgs } from 'node:util';
import { resolveSecrets } from './bootstrap.ts';
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { createGateway, type Gateway } from './gateway.ts';
import { createChannel, parseCreateChannel, publicChannel } from './http/routes/admin/channels.ts';
import { createToken, parseCreateToken, publicToken } from './http/routes/admin/tokens.ts';
import { serve } from './main.ts';
import { openStore } from './store/store.ts';
import { isGatewayError } from './errors/gateway-error.ts';

const USAGE = `Usage: tollway <command>
  serve                                   run the gateway (default)
  migrate                                 apply database migrations
  token create --name NAME [--models a,b] [--quota N] [--expires-at MS]
  token list
  token revoke ID
  channel add --name N --kind dashscope|kling [--base-url U] [--api-key K | --access-key A --secret-key S] [--models a,b]
  channel list
  channel disable ID
  simulate [--port N] [--task-ms MS]        run the upstream simulator alone`;

/** A wrong command line (not a wrong environment): printed without the "configuration error" label. */
class UsageError extends Error {}

async function withGateway<T>(config: Config, fn: (gw: Gateway) => Promise<T>): Promise<T> {
  const { adminKey, secret } = resolveSecrets(config);
  // A one-shot command: no task poller, no shared counters (an unreachable Redis must not hang the CLI).
  const gw = await createGateway({ ...config, logLevel: 'silent', redisUrl: undefined, tasks: { ...config.tasks, pollerEnabled: false } }, { adminKey, secret });
  try {
    return await fn(gw);
  } finally {
    await gw.close();
  }
}

const list = (s: string | undefined) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : undefined);

async function main(argv: string[]): Promise<number> {
  const [cmd = 'serve', sub, ...rest] = argv;
  const config = loadConfig();
  switch (cmd) {
    case 'serve':
      await serve(config);
      return -1; // keep running
    case 'migrate': {
      const store = await openStore(config.databaseUrl);
      await store.close();
      console.log(`migrations applied (${store.dialect})`);
      return 0;
    }
    case 'token': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { name: { type: 'string' }, models: { type: 'string' }, quota: { type: 'string' }, 'expires-at': { type: 'string' } },
      });
      return withGateway(config, async ({ deps }) => {
        if (sub === 'create') {
          if (!values.name) throw new UsageError('--name is required');
          const num = (flag: string, v: string | undefined) => {
            if (v === undefined) return undefined;
            if (!/^\d+$/.test(v.trim())) throw new UsageError(`${flag} must be a non-negative integer, got "${v}"`);
            return Number(v);
          };
          // The same validation as POST /admin/tokens (unknown models, past expiry …).
          const input = parseCreateToken({ name: values.name, models: list(values.models), quota: num('--quota', values.quota), expires_at: num('--expires-at', values['expires-at']) });
          const { record, secret } = await createToken(deps, input);
          await deps.repos.audit.write({ actor: 'cli', action: 'token.create', target: record.id });
          console.log(`id:    ${record.id}\ntoken: ${secret}\n(the token is shown only once)`);
          return 0;
        }
        if (sub === 'list') {
          console.log(JSON.stringify((await deps.repos.tokens.list()).map(publicToken), null, 2));
          return 0;
        }
        if (sub === 'revoke' && positionals[0]) {
          const h = await deps.repos.tokens.revoke(positionals[0]);
          if (!h) throw new UsageError(`no token ${positionals[0]}`);
          await deps.repos.audit.write({ actor: 'cli', action: 'token.revoke', target: positionals[0] });
          console.log(`revoked ${positionals[0]}`);
          return 0;
        }
        console.error(USAGE);
        return 2;
      });
    }
    case 'channel': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          name: { type: 'string' },
          kind: { type: 'string' },
          'base-url': { type: 'string' },
          'api-key': { type: 'string' },
          'access-key': { type: 'string' },
          'secret-key': { type: 'string' },
          models: { type: 'string' },
        },
      });
      return withGateway(config, async ({ deps }) => {
        if (sub === 'add') {
          const input = parseCreateChannel({
            name: values.name,
            kind: values.kind,
            base_url: values['base-url'],
            api_key: values['api-key'],
            access_key: values['access-key'],
            secret_key: values['secret-key'],
            models: list(values.models),
          });
          const rec = await createChannel(deps, input);
          await deps.repos.audit.write({ actor: 'cli', action: 'channel.create', target: rec.id });
          console.log(JSON.stringify(publicChannel(rec), null, 2));
          return 0;
        }
        if (sub === 'list') {
          console.log(JSON.stringify((await deps.repos.channels.list()).map(publicChannel), null, 2));
          return 0;
        }
        if (sub === 'disable' && positionals[0]) {
          if (!(await deps.repos.channels.setStatus(positionals[0], 'disabled'))) throw new UsageError(`no channel ${positionals[0]}`);
          await deps.repos.audit.write({ actor: 'cli', action: 'channel.disable', target: positionals[0] });
          console.log(`disabled ${positionals[0]}`);
          return 0;
        }
        console.error(USAGE);
        return 2;
      });
    }
    case 'simulate': {
      const { values } = parseArgs({ args: [sub, ...rest].filter((x): x is string => x !== undefined), options: { port: { type: 'string' }, 'task-ms': { type: 'string' } } });
      // Loaded on demand: `serve` in production never carries the simulator's code.
      const { startSimulator } = await import('../simulator/index.ts');
      const sim = await startSimulator({ port: Number(values.port ?? 9090), taskDurationMs: Number(values['task-ms'] ?? 5000) });
      console.error(`Upstream SIMULATOR listening on ${sim.url} (DashScope + Kling wire protocols; not a real provider)`);
      return -1;
    }
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(USAGE);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    if (e instanceof ConfigError) console.error(`tollway: configuration error: ${e.message}`);
    else if (e instanceof UsageError) console.error(`tollway: ${e.message}`);
    else if (isGatewayError(e)) console.error(`tollway: ${e.message}`);
    else console.error(`tollway: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
