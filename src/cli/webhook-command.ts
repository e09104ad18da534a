// `tollway webhook …`: /admin/webhooks through the admin API. Which targets are allowed (a private address or not)
// is the running server's rule, not the CLI's environment.
import type { Command } from 'commander';
import { defined, enabledFlag, list, orNone } from './args.ts';
import { apiCommand, type Ctx, type Opts } from './command.ts';
import { fields, type Page, pageText, secretText } from './output.ts';
import { paged, pageArgs } from './token-command.ts';

type Row = Record<string, unknown>;
const s = (o: Opts, k: string) => o[k] as string | undefined;
const enc = encodeURIComponent;
const EVENTS = 'spend.threshold, limit.reached, breaker.opened, breaker.closed, tasks.failure_rate, hold.reaped';
/** What a test or a redelivery prints: its outcome. */
const SENT = ['id', 'event_type', 'state', 'attempts', 'last_status', 'last_error', 'next_try_at'];

/** A delivery's holder as a person reads it: `token nightly-batch (tok_…)`. */
function holderText(d: Row): Row {
  const h = d.holder as { kind: string; id: string; name: string | null } | null;
  return { ...d, holder: h === null ? null : `${h.kind} ${h.name === null ? h.id : `${h.name} (${h.id})`}` };
}

export function webhookCommands(program: Command, ctx: Ctx): void {
  const webhook = program.command('webhook').description('alert webhooks (/admin/webhooks)');
  apiCommand(webhook, ctx, 'create', 'an alert webhook; prints its whsec_ secret once', async ({ api, opts }) => {
    const events = s(opts, 'events');
    const body = defined({
      url: s(opts, 'target'),
      events: events === undefined ? undefined : list(events),
      description: s(opts, 'description'),
      enabled: enabledFlag(opts),
    });
    const v = (await api.call('POST', '/webhooks', { body })) as Row;
    const text = [
      fields(v, ['id', 'url', 'events', 'enabled', 'description']),
      secretText('secret', String(v.secret), 'signs its deliveries; shown only this once: copy it now'),
    ];
    return { value: v, text: text.join('\n') };
  })
    .requiredOption('--target <url>', 'where deliveries go (the server decides whether a private address may be one)')
    .requiredOption('--events <a,b>', `events: ${EVENTS}`)
    .option('--description <text>', 'a note')
    .option('--disable', 'made disabled');
  paged(
    apiCommand(webhook, ctx, 'list', 'alert webhooks', async ({ api, opts }) => {
      const v = (await api.call('GET', '/webhooks', { query: pageArgs(opts) })) as Page;
      return { value: v, text: pageText(v, ['id', 'url', 'events', 'enabled', 'description']) };
    }),
  );
  apiCommand(webhook, ctx, 'show <id>', 'one webhook', async ({ api, args }) => {
    const v = (await api.call('GET', `/webhooks/${enc(args[0]!)}`)) as Row;
    return { value: v, text: fields(v) };
  });
  apiCommand(webhook, ctx, 'update <id>', "change a webhook's fields", async ({ api, args, opts }) => {
    const events = s(opts, 'events');
    const body = defined({
      url: s(opts, 'target'),
      events: events === undefined ? undefined : list(events),
      description: orNone(s(opts, 'description'), (d) => d),
      enabled: enabledFlag(opts),
    });
    const v = (await api.call('PATCH', `/webhooks/${enc(args[0]!)}`, { body })) as Row;
    return { value: v, text: fields(v) };
  })
    .option('--target <url>', 'where deliveries go')
    .option('--events <a,b>', `events: ${EVENTS}`)
    .option('--description <text|none>', 'a note')
    .option('--enable', 'deliver again')
    .option('--disable', 'stop delivering');
  apiCommand(webhook, ctx, 'delete <id>', 'remove a webhook', async ({ api, args }) => {
    const v = (await api.call('DELETE', `/webhooks/${enc(args[0]!)}`)) as Row;
    return { value: v, text: `deleted ${v.id}` };
  });
  paged(
    apiCommand(webhook, ctx, 'deliveries <id>', 'its deliveries with their outcome, newest first', async (r) => {
      const v = (await r.api.call('GET', `/webhooks/${enc(r.args[0]!)}/deliveries`, {
        query: pageArgs(r.opts),
      })) as Page;
      const cols = ['id', 'event_type', 'holder', 'threshold', 'state', 'attempts', 'last_status', 'created_at'];
      return { value: v, text: pageText({ ...v, data: v.data.map(holderText) }, cols) };
    }),
  );
  apiCommand(webhook, ctx, 'test <id>', 'send it a signed webhook.test event; prints the outcome', async (r) => {
    const v = (await r.api.call('POST', `/webhooks/${enc(r.args[0]!)}/test`)) as Row;
    return { value: v, text: fields(v, SENT) };
  });
  apiCommand(
    webhook,
    ctx,
    'redeliver <id> <delivery>',
    "send a delivery's exact payload again (one more attempt of it); prints the outcome",
    async (r) => {
      const path = `/webhooks/${enc(r.args[0]!)}/deliveries/${enc(r.args[1]!)}/redeliver`;
      const v = (await r.api.call('POST', path)) as Row;
      return { value: v, text: fields(v, SENT) };
    },
  );
}
