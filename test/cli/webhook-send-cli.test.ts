// `tollway webhook test` and `tollway webhook redeliver` against a real gateway and a receiver that verifies the
// signatures: the outcome printed (JSON with --json, "name: value" lines without), a second attempt of the same
// delivery, the deliveries' holder and threshold in the table, and unknown ids refused with the server's message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { okJson, okText, tollway as run } from '../support/cli.ts';
import { useHarness } from '../support/harness.ts';
import { startVerifyingReceiver, type VerifyingReceiver } from '../support/verifying-receiver.ts';

const ctx = useHarness({
  channels: false,
  env: { TOLLWAY_ALLOW_PRIVATE_NETWORK: '1', TOLLWAY_ALERT_CHECK_MS: '3600000', TOLLWAY_WEBHOOK_TICK_MS: '600000' },
});
const ok = <T = Record<string, unknown>>(args: string[]) => okJson<T>(ctx.h, args);
let rx: VerifyingReceiver;
beforeAll(async () => {
  rx = await startVerifyingReceiver();
});
afterAll(() => rx.close());

describe('tollway webhook test / redeliver', { timeout: 240_000 }, () => {
  it('sends a signed test event, redelivers it, and names what fired each delivery', async () => {
    const made = await ok<{ id: string; secret: string }>([
      'webhook',
      'create',
      '--target',
      rx.url,
      '--events',
      'spend.threshold',
    ]);
    rx.secret = made.secret;
    const sent = await ok<{ id: string; state: string; attempts: number; last_status: number }>([
      'webhook',
      'test',
      made.id,
    ]);
    expect(sent).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200 });
    expect(rx.hits.map((h) => h.verified?.type)).toEqual(['webhook.test']);
    const text = await okText(ctx.h, ['webhook', 'redeliver', made.id, sent.id]);
    expect(text).toMatch(/^state:\s+delivered$/m);
    expect(text).toMatch(/^attempts:\s+2$/m);
    expect(rx.hits.map((h) => [h.verified?.type, h.headers['webhook-id']])).toEqual([
      ['webhook.test', sent.id],
      ['webhook.test', sent.id],
    ]);

    await ctx.h.gw.deps.alerts.emit('spend.threshold', {
      holder: { kind: 'account', id: 'acct_1', name: 'Acme' },
      threshold: 80,
    });
    const table = await okText(ctx.h, ['webhook', 'deliveries', made.id]);
    expect(table.split('\n')[0]).toMatch(/^id\s+event_type\s+holder\s+threshold\s+state/);
    expect(table).toMatch(/spend\.threshold\s+account Acme \(acct_1\)\s+80 %\s+pending/);

    const unknown = await run(ctx.h, ['webhook', 'redeliver', made.id, 'msg_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No delivery msg_nope of webhook/);
    const missing = await run(ctx.h, ['webhook', 'test', 'wh_nope', '--json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No webhook wh_nope/);
  });
});
