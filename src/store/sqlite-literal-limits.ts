// SQLite reads the value bound to a LIMIT or OFFSET parameter while it plans the statement, and marks the statement
// to be compiled again whenever that parameter is bound anew: better-sqlite3 binds on every run, so a cached
// `… LIMIT ?` statement was parsed and planned again on every run (the poller's claim, the outbox rounds, every
// admin list). Written as literals, each distinct limit is one statement in the cache (sqlite-statement-cache.ts),
// prepared once; the values are page sizes and batch sizes, a handful of numbers.
import { type LimitNode, type OffsetNode, type OperationNode, SqliteQueryCompiler, ValueNode } from 'kysely';

/** Is `n` a count SQLite can take as it is written: a non-negative safe integer. */
export const isLiteralCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** Kysely's SQLite compiler, with counts given to LIMIT and OFFSET written into the SQL instead of bound. */
export class LiteralLimitCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit ');
    this.count(node.limit);
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append('offset ');
    this.count(node.offset);
  }

  private count(node: OperationNode): void {
    if (ValueNode.is(node) && isLiteralCount(node.value)) this.append(String(node.value));
    else this.visitNode(node);
  }
}
