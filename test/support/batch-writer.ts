// A store's SQLite batch writer with the ledger statements the meter would give it (tests that hand it rows directly).
import { SQLITE_LEDGER } from '../../src/metering/balances/sqlite-ledger-insert.ts';
import type { SqliteBatchWriter } from '../../src/store/sqlite-batch-writer.ts';

export function withLedger(w: SqliteBatchWriter): SqliteBatchWriter {
  w.useLedger(SQLITE_LEDGER);
  return w;
}
