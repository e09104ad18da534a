// The rows the SQLite batch writer commits, in column order, as the event loop hands them over (and as they cross to
// the writer thread), and the ledger statements it is given: the ledger's half walks the money rows, which are
// metering's (metering/balances/sqlite-ledger-insert.ts), so the store takes it rather than imports it.
import type BetterSqlite3 from 'better-sqlite3';

/** One ledger charge, in column order; a charge taken from an allowance (metering/allowances.ts) has four more. */
export type LedgerTuple =
  | [...LedgerColumns, allowance?: null]
  | [
      ...LedgerColumns,
      allowance: AllowanceTuple,
      covered: number,
      listAmount: number | null,
      priceGroup: string | null,
    ];
type LedgerColumns = [
  key: string,
  tokenId: string,
  model: string,
  kind: string,
  quantities: unknown,
  unitPrices: unknown,
  amount: number,
  requestId: string | null,
  taskId: string | null,
  upstreamRequestId: string | null,
  createdAt: number,
];
/**
 * An allowance as the batch writer needs it, made once per allowance: its hold's key, its account, its rows past the
 * token.
 */
export interface AllowanceTuple {
  allowance: string;
  accountId: string | null;
  /** Each row past the token: its level's name, then its key values (metering/balances/rows.ts flatRows). */
  rows: Array<string | number>;
}
/** One request-log row, in column order. */
export type LogTuple = [
  requestId: string,
  tokenId: string | null,
  model: string | null,
  endpoint: string,
  method: string,
  status: number,
  latencyMs: number,
  usage: unknown,
  amount: number,
  upstreamRequestId: string | null,
  errorCode: string | null,
  createdAt: number,
  channelId: string | null,
  attempts: unknown,
  ttfbMs: number | null,
  upstreamError?: string | null,
];

/** An inserted charge cut to the room its balances had left: its key and the amount it was written at. */
export type LedgerCut = [key: string, amount: number];

/** Insert a batch's charges in the open transaction; the inserted ones cut to their room. */
export type LedgerInsert = (rows: LedgerTuple[]) => LedgerCut[];

/**
 * The ledger's statements as the batch writer takes them: prepared on a connection in this thread, and, for the
 * writer thread, the URL of the module that exports the same `prepareLedgerInsert`.
 */
export interface LedgerStatements {
  prepare(raw: BetterSqlite3.Database): LedgerInsert;
  moduleUrl: string;
}
