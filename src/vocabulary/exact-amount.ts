// Sums of micro-units as the reports give them (bills, usage, reconciliation). One balance never passes 2^53 − 1
// (metering/balance-bound.ts), but a sum over many tokens' ledger lines can: sums are added as bigints, and a JSON
// answer
// gives an amount as a number up to 2^53 − 1 and past it as a string of its decimal digits (a JSON number that
// large would lose digits in most parsers).
import { sql, type RawBuilder } from 'kysely';

/** Micro-units: a JSON integer, or past Number.MAX_SAFE_INTEGER its decimal digits as a string. */
export type Amount = number | string;

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

export function amountOf(v: bigint): Amount {
  return v <= MAX && v >= -MAX ? Number(v) : v.toString();
}

/** The exact sum of amounts (numbers, digit strings, or a store's integer or numeric value). */
export function addAmounts(...xs: ReadonlyArray<Amount | bigint>): Amount {
  let s = 0n;
  for (const x of xs) s += BigInt(x);
  return amountOf(s);
}

/** A store's sum read exactly: the SQL sum as text (SQLite's integer sum and PostgreSQL's numeric alike). */
export const sumText = (inner: RawBuilder<unknown>): RawBuilder<string> =>
  sql<string>`cast(coalesce(sum(${inner}), 0) as text)`;
