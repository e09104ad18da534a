#!/usr/bin/env node
// tollway serve | migrate | token create|list|revoke|update|topup|rotate|rotate-callback-secret | account
// create|list|show|update|topup|revoke|usage | price-group set|list | channel add|list|disable|update | webhook
// create|list|update|delete|deliveries | reconcile | bill | stats | simulate
import { parseArgs } from 'node:util';
import {
  CLI,
  defined,
  int,
  jsonFlag,
  modelList,
  num,
  onlyFlags,
  orNone,
  print,
  USAGE,
  usageError,
  UsageError,
  withAdmin,
} from './cli/args.ts';
import { tokenCommand } from './cli/token-command.ts';
import { webhookCommand } from './cli/webhook-command.ts';
import { billCommand } from './cli/bill-command.ts';
import { statsCommand } from './cli/stats-command.ts';
import { accountCommand, priceGroupCommand } from './cli/account-command.ts';
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { simLimitOptions } from './config/sim-env.ts';
import {
  addChannel,
  listChannels,
  parseCreateChannel,
  publicChannel,
  setChannelStatus,
} from './core/admin/channels.ts';
import { channelView, getChannel, parseChannelEdit, updateChannel } from './core/admin/channel-changes.ts';
import { reconcilePeriod, reconcileReport } from './core/admin/reconcile.ts';
import { isClean } from './core/reconcile.ts';
import { serve } from './main.ts';
import { openStore } from './store/store.ts';

async function channelCommand(config: Config, sub: string | undefined, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      kind: { type: 'string' },
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      'access-key': { type: 'string' },
      'secret-key': { type: 'string' },
      models: { type: 'string' },
      priority: { type: 'string' },
      weight: { type: 'string' },
      account: { type: 'string' },
      'task-slots': { type: 'string' },
      'model-limits': { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
    },
  });
  const id = positionals[0];
  if (sub === 'add') {
    onlyFlags(values, 'channel add', [
      'name',
      'kind',
      'base-url',
      'api-key',
      'access-key',
      'secret-key',
      'models',
      'priority',
      'weight',
      'account',
      'task-slots',
      'model-limits',
    ]);
    // The same validation as POST /admin/channels.
    const body = defined({
      name: values.name,
      kind: values.kind,
      base_url: values['base-url'],
      api_key: values['api-key'],
      access_key: values['access-key'],
      secret_key: values['secret-key'],
      models: modelList(values.models),
      priority: int('--priority', values.priority),
      weight: int('--weight', values.weight),
      account: values.account,
      task_slots: int('--task-slots', values['task-slots']),
      model_limits: jsonFlag('--model-limits', values['model-limits']),
    });
    const input = parseCreateChannel(body);
    return withAdmin(config, async (deps) => print(publicChannel(await addChannel(deps, CLI, input))));
  }
  if (sub === 'list' || sub === 'disable') onlyFlags(values, `channel ${sub}`, []);
  if (sub === 'list') return withAdmin(config, async (deps) => print((await listChannels(deps)).map(publicChannel)));
  if (sub === 'disable' && id)
    return withAdmin(config, async (deps) => {
      await setChannelStatus(deps, CLI, id, 'disabled');
      return print(`disabled ${id}`);
    });
  if (sub === 'update' && id) {
    onlyFlags(values, 'channel update', [
      'name',
      'models',
      'priority',
      'weight',
      'enable',
      'disable',
      'base-url',
      'api-key',
      'access-key',
      'secret-key',
      'account',
      'task-slots',
      'model-limits',
    ]);
    if (values.enable && values.disable) throw new UsageError('--enable and --disable exclude each other');
    const body = defined({
      name: values.name,
      models: orNone(values.models, modelList),
      priority: int('--priority', values.priority),
      weight: int('--weight', values.weight),
      enabled: values.enable ? true : values.disable ? false : undefined,
      base_url: values['base-url'],
      api_key: values['api-key'],
      access_key: values['access-key'],
      secret_key: values['secret-key'],
      account: orNone(values.account, (a) => a),
      task_slots: orNone(values['task-slots'], (n) => int('--task-slots', n)),
      model_limits: orNone(values['model-limits'], (j) => jsonFlag('--model-limits', j)),
    });
    // The same validation as PATCH /admin/channels/{id}; keys are never printed.
    return withAdmin(config, async (deps) => {
      const edit = parseChannelEdit(body, (await getChannel(deps, id)).kind);
      print(channelView(deps, await updateChannel(deps, CLI, id, edit)));
      return 0;
    });
  }
  return usageError();
}

/** Prints the report as JSON; exit code 0 when it is clean, 1 when something needs a look. */
async function reconcileCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' } } });
  const { from, to } = reconcilePeriod(num('--from', values.from), num('--to', values.to));
  if (from >= to) throw new UsageError('--from must be before --to');
  return withAdmin(config, async (deps) => {
    const report = await reconcileReport(deps, from, to, config.reservationTtlMs);
    print(report);
    return isClean(report) ? 0 : 1;
  });
}

const HELP = new Set(['help', '--help', '-h']);

async function main(argv: string[]): Promise<number> {
  const [cmd = 'serve', sub, ...rest] = argv;
  // Help needs no configuration (and a command's own --help is the same usage).
  if (HELP.has(cmd) || (sub !== undefined && HELP.has(sub)) || rest.some((a) => HELP.has(a))) {
    console.log(USAGE);
    return 0;
  }
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
    case 'token':
      return tokenCommand(config, sub, rest);
    case 'account':
      return accountCommand(config, sub, rest);
    case 'price-group':
      return priceGroupCommand(config, sub, rest);
    case 'channel':
      return channelCommand(config, sub, rest);
    case 'webhook':
      return webhookCommand(config, sub, rest);
    case 'bill':
      return billCommand(
        config,
        [sub, ...rest].filter((x): x is string => x !== undefined),
      );
    case 'stats':
      return statsCommand(
        config,
        [sub, ...rest].filter((x): x is string => x !== undefined),
      );
    case 'reconcile':
      return reconcileCommand(
        config,
        [sub, ...rest].filter((x): x is string => x !== undefined),
      );
    case 'simulate': {
      const { values } = parseArgs({
        args: [sub, ...rest].filter((x): x is string => x !== undefined),
        options: {
          port: { type: 'string' },
          'task-ms': { type: 'string' },
          host: { type: 'string' },
          'public-url': { type: 'string' },
        },
      });
      const publicUrl = values['public-url'];
      if (publicUrl !== undefined && !/^https?:\/\/[^/]/.test(publicUrl))
        throw new UsageError(`--public-url must be an http(s) URL, got "${publicUrl}"`);
      // Loaded on demand: `serve` in production never carries the simulator's code.
      const { startSimulator } = await import('../simulator/index.ts');
      const host = values.host ?? '127.0.0.1';
      const sim = await startSimulator({
        port: num('--port', values.port) ?? 9090,
        host,
        taskDurationMs: num('--task-ms', values['task-ms']) ?? 5000,
        ...simLimitOptions(config.simLimits),
        ...(publicUrl ? { publicUrl } : {}),
      });
      console.error(
        `Upstream SIMULATOR listening on ${host}:${sim.port}, results at ${sim.url} (DashScope + Kling wire protocols; not a real provider)`,
      );
      // As a container's PID 1 (`docker run … simulate`, the compose file's simulator) a signal without a handler
      // is ignored, so `docker stop` would wait for its timeout and kill.
      for (const signal of ['SIGTERM', 'SIGINT'] as const)
        process.once(signal, () => void sim.close().then(() => process.exit(0)));
      return -1;
    }
    default:
      return usageError();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    // A usage or validation error (GatewayError) is one line: its message.
    if (e instanceof ConfigError) console.error(`tollway: configuration error: ${e.message}`);
    else console.error(`tollway: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
