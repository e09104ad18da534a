// `tollway channel …`: /admin/channels through the admin API (the server seals the keys; they are never printed).
import type { Command } from 'commander';
import { defined, int, jsonFlag, modelList, orNone } from './args.ts';
import { enabledFlag } from './args.ts';
import { apiCommand, type Ctx, type Opts } from './command.ts';
import { fields, type Page, pageText } from './output.ts';
import { paged, pageArgs } from './token-command.ts';

type Row = Record<string, unknown>;
const s = (o: Opts, k: string) => o[k] as string | undefined;
const enc = encodeURIComponent;

const keyFields = (o: Opts) => ({
  base_url: s(o, 'baseUrl'),
  api_key: s(o, 'apiKey'),
  access_key: s(o, 'accessKey'),
  secret_key: s(o, 'secretKey'),
});

const channelOptions = (cmd: Command, edit: boolean): Command => {
  const none = edit ? '|none' : '';
  return cmd
    .option('--name <name>', 'its name')
    .option('--base-url <url>', "the upstream's address")
    .option('--api-key <key>', 'a DashScope key')
    .option('--access-key <key>', 'a Kling access key')
    .option('--secret-key <key>', 'a Kling secret key')
    .option(`--models <a,b${none}>`, 'the models it serves (default every model of its kind)')
    .option('--priority <n>', 'lower first (a negative one as --priority=-5)')
    .option('--weight <n>', 'its share among channels of one priority')
    .option(`--account <id${none}>`, 'serves only this account')
    .option(`--task-slots <n${none}>`, 'video tasks at once')
    .option(`--model-limits <json${none}>`, 'per-model limits, e.g. \'{"*":{"rpm":60}}\'');
};

export function channelCommands(program: Command, ctx: Ctx): void {
  const channel = program.command('channel').description('upstream channels (/admin/channels)');
  channelOptions(
    apiCommand(channel, ctx, 'add', 'a new upstream channel', async ({ api, opts }) => {
      const body = defined({
        name: s(opts, 'name'),
        kind: s(opts, 'kind'),
        ...keyFields(opts),
        models: modelList(s(opts, 'models')),
        priority: int('--priority', s(opts, 'priority')),
        weight: int('--weight', s(opts, 'weight')),
        account: s(opts, 'account'),
        task_slots: int('--task-slots', s(opts, 'taskSlots')),
        model_limits: jsonFlag('--model-limits', s(opts, 'modelLimits')),
      });
      const v = (await api.call('POST', '/channels', { body })) as Row;
      return { value: v, text: fields(v) };
    }).requiredOption('--kind <kind>', 'dashscope or kling'),
    false,
  );
  paged(
    apiCommand(channel, ctx, 'list', 'channels (keys masked)', async ({ api, opts }) => {
      const v = (await api.call('GET', '/channels', { query: pageArgs(opts) })) as Page;
      return { value: v, text: pageText(v, ['id', 'name', 'kind', 'status', 'priority', 'weight', 'models']) };
    }),
  );
  apiCommand(channel, ctx, 'show <id>', 'one channel (keys masked)', async ({ api, args }) => {
    const v = (await api.call('GET', `/channels/${enc(args[0]!)}`)) as Row;
    return { value: v, text: fields(v) };
  });
  for (const status of ['disable', 'enable'] as const)
    apiCommand(channel, ctx, `${status} <id>`, `${status} a channel`, async ({ api, args }) => {
      const v = (await api.call('POST', `/channels/${enc(args[0]!)}/${status}`)) as Row;
      return { value: v, text: `${status}d ${v.id} (${v.name})` };
    });
  channelOptions(
    apiCommand(
      channel,
      ctx,
      'update <id>',
      "change a channel's fields (none removes one)",
      async ({ api, args, opts }) => {
        const body = defined({
          name: s(opts, 'name'),
          ...keyFields(opts),
          models: orNone(s(opts, 'models'), modelList),
          priority: int('--priority', s(opts, 'priority')),
          weight: int('--weight', s(opts, 'weight')),
          enabled: enabledFlag(opts),
          account: orNone(s(opts, 'account'), (a) => a),
          task_slots: orNone(s(opts, 'taskSlots'), (n) => int('--task-slots', n)),
          model_limits: orNone(s(opts, 'modelLimits'), (j) => jsonFlag('--model-limits', j)),
        });
        const v = (await api.call('PATCH', `/channels/${enc(args[0]!)}`, { body })) as Row;
        return { value: v, text: fields(v) };
      },
    )
      .option('--enable', 'take it into use')
      .option('--disable', 'take it out of use'),
    true,
  );
}
