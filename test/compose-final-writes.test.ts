// The last step of a graceful shutdown (compose.ts writeQueued): every queued charge and request-log row is
// written before the store closes — retried while the store fails for a moment — and whatever a store that never
// comes back leaves is reported on the log, each charge in full. On the suite's dialect, SQLite or PostgreSQL; the
// store's failure is injected in its queries (a Kysely plugin), the writes themselves are real.
import { Writable } from 'node:stream';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { Catalogue } from '../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../src/catalogue/default-catalogue.ts';
import { makeLogger } from '../src/runtime/logger.ts';
import { writeQueued } from '../src/final-writes.ts';
import { StoreMeter } from '../src/metering/meter.ts';
import { RequestLogWriter } from '../src/store/repos/request-log.ts';
import { answeredLogRow } from './support/store-rows.ts';
import { useStore } from './support/store.ts';

const fresh = useStore();
const catalogue = new Catalogue(DEFAULT_CATALOGUE);

/** Inserts into the ledger and the request log fail (a lost connection) while `down` says so. */
class StoreOutage implements KyselyPlugin {
  down = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.down > 0 && args.node.kind === 'InsertQueryNode') {
      this.down--;
      throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    }
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

function setup(tag: string) {
  const outage = new StoreOutage();
  const db = fresh.store.db.withPlugin(outage);
  const lines: string[] = [];
  const logger = makeLogger(
    'info',
    new Writable({
      write: (c: Buffer, _e, cb) => {
        lines.push(c.toString('utf8'));
        cb();
      },
    }),
  );
  // No batch writer: both writers go through Kysely (the plugin's queries) on either dialect.
  const meter = new StoreMeter(db, () => catalogue, { batchWriter: null, flushIntervalMs: 60_000 });
  const requestLog = new RequestLogWriter(db, {
    batchWriter: null,
    intervalMs: 60_000,
    onError: () => undefined,
    onRejected: () => undefined,
  });
  const charge = (i: number) =>
    meter.chargeSyncDeferred({
      requestId: `req_${tag}_${i}`,
      tokenId: 'tok_final',
      model: 'qwx3.7-plus',
      billingModel: 'qwx3.7-plus',
      usage: { kind: 'tokens', inputTokens: 100 + i, outputTokens: 10 },
      upstreamRequestId: `up-${i}`,
    });
  const logRow = (i: number) =>
    requestLog.write(answeredLogRow({ requestId: `req_${tag}_${i}`, tokenId: 'tok_final', amount: 1 }));
  const ledgerKeys = async () =>
    (
      await fresh.store.db
        .selectFrom('ledger')
        .select('idempotency_key')
        .where('idempotency_key', 'like', `req_${tag}_%`)
        .execute()
    )
      .map((r) => r.idempotency_key)
      .sort();
  const logIds = async () =>
    (
      await fresh.store.db
        .selectFrom('request_log')
        .select('request_id')
        .where('request_id', 'like', `req_${tag}_%`)
        .execute()
    )
      .map((r) => r.request_id)
      .sort();
  return { outage, meter, requestLog, logger, lines, charge, logRow, ledgerKeys, logIds };
}

describe('graceful shutdown: the queued rows', () => {
  it('a store that fails for a moment: the final writes retry until every charge and request-log row is in', async () => {
    const t = setup('blip');
    for (let i = 0; i < 3; i++) {
      t.charge(i);
      t.logRow(i);
    }
    // The batches and the row-by-row passes of the first rounds fail; later rounds go through.
    t.outage.down = 6;
    await writeQueued({ meter: t.meter, requestLog: t.requestLog, logger: t.logger }, 5_000);
    expect(t.outage.down).toBe(0);
    expect(await t.ledgerKeys()).toEqual(['req_blip_0', 'req_blip_1', 'req_blip_2']);
    expect(await t.logIds()).toEqual(['req_blip_0', 'req_blip_1', 'req_blip_2']);
    expect(t.meter.unwritten()).toHaveLength(0);
    expect(t.lines.join('')).not.toContain('not written at shutdown');
  });

  it('a store that never comes back: after the time allowed, every charge is on the log in full, and the request-log ids', async () => {
    const t = setup('gone');
    t.charge(0);
    t.charge(1);
    t.logRow(0);
    t.outage.down = Number.POSITIVE_INFINITY;
    const began = Date.now();
    await writeQueued({ meter: t.meter, requestLog: t.requestLog, logger: t.logger }, 300);
    expect(Date.now() - began).toBeGreaterThanOrEqual(300);
    expect(await t.ledgerKeys()).toEqual([]);
    const lost = t.lines.map(
      (l) => JSON.parse(l) as { msg: string; charges?: Array<Record<string, unknown>>; request_ids?: string[] },
    );
    const charges = lost.find((l) => l.msg.startsWith('ledger charges not written at shutdown'))?.charges ?? [];
    expect(charges.map((c) => c.key)).toEqual(['req_gone_0', 'req_gone_1']);
    const priced = t.meter.price('qwx3.7-plus', { kind: 'tokens', inputTokens: 101, outputTokens: 10 });
    expect(charges[1]).toMatchObject({
      token_id: 'tok_final',
      model: 'qwx3.7-plus',
      kind: 'tokens',
      amount: priced.amount,
      request_id: 'req_gone_1',
      upstream_request_id: 'up-1',
    });
    expect(charges[1]!.quantities).toEqual(priced.quantities);
    expect(lost.find((l) => l.msg === 'request-log rows not written at shutdown')?.request_ids).toEqual(['req_gone_0']);
  });

  it('a write that never returns (a database that stopped answering) is bounded by the same time, and reported', async () => {
    const t = setup('hung');
    t.charge(0);
    vi.spyOn(t.meter, 'flush').mockReturnValue(new Promise<void>(() => undefined));
    const began = Date.now();
    await writeQueued({ meter: t.meter, requestLog: t.requestLog, logger: t.logger }, 300);
    expect(Date.now() - began).toBeLessThan(2_000);
    const charges = t.lines
      .map((l) => JSON.parse(l) as { msg: string; charges?: Array<{ key: string }> })
      .find((l) => l.msg.startsWith('ledger charges not written'))?.charges;
    expect(charges?.map((c) => c.key)).toEqual(['req_hung_0']);
  });
});
