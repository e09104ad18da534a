// `tollway webhook …`: the admin API's alert webhook operations on the store, with the same validation.
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import {
  createWebhook,
  deleteWebhook,
  deliveryPage,
  parseCreateWebhook,
  parseWebhookPatch,
  publicWebhook,
  updateWebhook,
  webhookPage,
} from '../core/admin/webhooks.ts';
import { CLI, defined, num, onlyFlags, orNone, print, usageError, UsageError, withAdmin } from './args.ts';

const eventList = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);

export async function webhookCommand(config: Config, sub: string | undefined, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      events: { type: 'string' },
      description: { type: 'string' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    },
  });
  const id = positionals[0];
  const allowPrivate = config.allowPrivateNetwork;
  if (values.enable && values.disable) throw new UsageError('--enable and --disable exclude each other');
  const enabled = values.enable ? true : values.disable ? false : undefined;
  if (sub === 'create') {
    onlyFlags(values, 'webhook create', ['url', 'events', 'description', 'disable']);
    const input = parseCreateWebhook(
      defined({ url: values.url, events: eventList(values.events), description: values.description, enabled }),
      allowPrivate,
    );
    return withAdmin(config, async (deps) => {
      const { record, secret } = await createWebhook(deps, CLI, input);
      // The only time the secret is shown.
      print({ ...publicWebhook(record), secret });
      return 0;
    });
  }
  if (sub === 'list') {
    onlyFlags(values, 'webhook list', ['limit', 'cursor']);
    return withAdmin(config, async (deps) =>
      print(await webhookPage(deps, num('--limit', values.limit) ?? 100, values.cursor)),
    );
  }
  if (sub === 'update' && id) {
    onlyFlags(values, 'webhook update', ['url', 'events', 'description', 'enable', 'disable']);
    const patch = parseWebhookPatch(
      defined({
        url: values.url,
        events: eventList(values.events),
        description: orNone(values.description, (d) => d),
        enabled,
      }),
      allowPrivate,
    );
    return withAdmin(config, async (deps) => print(publicWebhook(await updateWebhook(deps, CLI, id, patch))));
  }
  if (sub === 'delete' && id) {
    onlyFlags(values, 'webhook delete', []);
    return withAdmin(config, async (deps) => {
      await deleteWebhook(deps, CLI, id);
      return print(`deleted ${id}`);
    });
  }
  if (sub === 'deliveries' && id) {
    onlyFlags(values, 'webhook deliveries', ['limit', 'cursor']);
    return withAdmin(config, async (deps) =>
      print(await deliveryPage(deps, id, num('--limit', values.limit) ?? 100, values.cursor)),
    );
  }
  return usageError();
}
