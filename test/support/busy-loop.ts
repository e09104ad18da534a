// Is the event loop free while an admin read runs? A tiny HTTP server of the test's own is asked again and again
// (one request after another) while a monthly bill computes; the count of answers that came back before the bill did
// is the measure — an ordering, not a timing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { billLines } from '../../src/core/admin/bills.ts';
import { LedgerRepo } from '../../src/store/repos/ledger.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import type { Database } from '../../src/store/schema.ts';

export const SEED_MONTH = Date.parse('2026-03-01T00:00:00Z');

export async function pingServer(): Promise<{ url: string; close(): void }> {
  const server: Server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  await (await fetch(url)).text(); // a warm connection
  return { url, close: () => server.close() };
}

/** Requests answered while a monthly bill over `db`'s ledger computes, and the bill's entry count. */
export async function answeredDuringBill(
  db: Kysely<Database>,
  url: string,
): Promise<{ answered: number; total: number }> {
  const repos = { ledger: new LedgerRepo(db), accounts: new AccountsRepo(db), tokens: new TokensRepo(db) };
  const deps = { repos, meter: { flush: async () => undefined } };
  let done = false;
  const bill = billLines(deps, { since: SEED_MONTH, until: SEED_MONTH + 31 * 86_400_000 }, 'month').finally(
    () => (done = true),
  );
  let answered = 0;
  while (!done) {
    // A reused connection the server dropped meanwhile (its keep-alive ran out while the loop was blocked) is no
    // answer.
    const text = await fetch(url).then(
      (r) => r.text(),
      () => '',
    );
    if (!done && text === 'ok') answered++;
  }
  const { lines } = await bill;
  return { answered, total: lines.reduce((s, l) => s + l.entries, 0) };
}
