// How a store meter's charges reach the ledger: a row built and bounded by the room it may take (charge-cuts.ts), then
// queued for group commit or written in the caller's transaction. StoreMeter (meter.ts) prices and holds on top.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { GroupCommit, type WriteBacklog } from '../store/group-commit.ts';
import type { SqliteBatchWriter } from '../store/sqlite-batch-writer.ts';
import { ledgerTuple, uncovered, type AllowanceRef, type LedgerRow } from './ledger-row.ts';
import { insertCharge, writeLedgerBatch } from './ledger-write.ts';
import { MAX_BALANCE, targetRoom } from './balance-bound.ts';
import { SQLITE_LEDGER } from './balances/sqlite-ledger-insert.ts';
import { ChargeCuts } from './charge-cuts.ts';
import { addSpent, type HoldTarget } from './holds.ts';
import type { StoreMeterOptions } from './meter-options.ts';
import type { Charge, SyncChargeInput } from './types.ts';

export class MeterLedger {
  private readonly batches: GroupCommit<LedgerRow>;
  protected readonly queuedKeys = new Set<string>();
  /** Amounts queued but not yet committed, per token: counted by quota checks so the lag cannot be exploited. */
  protected readonly pending = new Map<string, number>();
  private readonly batchWriter: SqliteBatchWriter | null;
  protected readonly cuts: ChargeCuts;
  /** Tokens a charge was cut at, for want of room (charge-cuts.ts): their calls reserve, whatever their quota. */
  readonly atBound: ReadonlySet<string>;
  readonly now: () => number;

  constructor(
    protected readonly db: Kysely<Database>,
    opts: StoreMeterOptions,
  ) {
    this.cuts = new ChargeCuts(opts.onClamped ?? (() => undefined));
    this.atBound = this.cuts.atBound;
    const onError = opts.onError ?? (() => undefined);
    this.batchWriter = opts.batchWriter ?? null;
    this.batchWriter?.useLedger(SQLITE_LEDGER);
    this.now = opts.now ?? Date.now;
    this.batches = new GroupCommit<LedgerRow>({
      intervalMs: opts.flushIntervalMs ?? 10,
      maxBatch: opts.maxBatch ?? 200,
      maxAgeMs: opts.maxQueueAgeMs ?? 100,
      ...(opts.tick ? { tick: opts.tick } : {}),
      // SQLite: the same transaction as prepared statements (src/store/sqlite-batch-writer.ts).
      write: (batch) =>
        this.batchWriter
          ? this.batchWriter.ledger(batch.map(ledgerTuple)).then((cuts) => this.cuts.written(batch, cuts))
          : writeLedgerBatch(this.db, batch, (r, room) => this.cuts.bounded(r, room)),
      onCommitted: (batch) => this.settled(batch),
      onRejected: (rows, e) => {
        this.settled(rows);
        opts.onRejected?.(rows, e);
      },
      onError,
    });
  }

  /** Rows that left the queue (written, or refused by the store): no longer pending. */
  private settled(rows: LedgerRow[]): void {
    for (const r of rows) {
      this.queuedKeys.delete(r.key);
      const left = (this.pending.get(r.tokenId) ?? 0) - uncovered(r);
      if (left > 0) this.pending.set(r.tokenId, left);
      else this.pending.delete(r.tokenId);
    }
  }

  protected syncRow(
    input: SyncChargeInput,
    charge: Charge,
    accountId: string | null = null,
    allowance: AllowanceRef | null = null,
    covered = 0,
  ): LedgerRow {
    // Every field set, in one order: one object shape for every row.
    return this.cuts.checked({
      accountId,
      key: input.idempotencyKey ?? input.requestId,
      tokenId: input.tokenId,
      model: input.model,
      kind: input.usage.kind,
      charge,
      requestId: input.requestId,
      taskId: null,
      upstreamRequestId: input.upstreamRequestId ?? null,
      createdAt: this.now(),
      allowance,
      covered,
    });
  }

  protected queue(row: LedgerRow): void {
    this.queuedKeys.add(row.key);
    const part = uncovered(row);
    if (part !== 0) this.pending.set(row.tokenId, (this.pending.get(row.tokenId) ?? 0) + part);
    this.batches.push(row);
  }

  /** The queue of charges not yet committed: its depth and lag (metrics). */
  get backlog(): WriteBacklog {
    return this.batches;
  }

  chargesBehind(): Promise<void> | undefined {
    return this.batches.behind();
  }

  /** Commit everything queued so far; resolves when those rows are written (or the attempt failed). */
  flush(): Promise<void> {
    return this.batches.flush();
  }

  /**
   * Resolves once the charges queued so far go before, or with, what is written next: handed to the SQLite batch writer
   * (commits in order), else committed.
   */
  chargesAhead(): Promise<void> {
    return this.batchWriter ? this.batches.handOver() : this.batches.flush();
  }

  unwritten(): readonly LedgerRow[] {
    return this.batches.unwritten();
  }

  /** One charge and its spend on the rows the hold named (the token alone when there was no hold), at most `cap`. */
  protected async chargeHeld(
    trx: Kysely<Database>,
    priced: LedgerRow,
    target: HoldTarget,
    cap = MAX_BALANCE,
  ): Promise<number> {
    const row = this.cuts.bounded(priced, Math.min(await targetRoom(trx, target), cap));
    if (!(await insertCharge(trx, row))) return 0;
    if (row.charge.amount > 0) await addSpent(trx, target, row.charge.amount);
    return row.charge.amount;
  }
}
