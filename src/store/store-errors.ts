// What a store error means, in either dialect: the few questions callers ask of one.

interface CodedError {
  code?: unknown;
  message?: unknown;
}

/** True when an error is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as CodedError | null;
  return (
    err?.code === '23505' ||
    err?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    /UNIQUE constraint failed/.test(String(err?.message))
  );
}

// SQLite's result codes for a row the statement cannot take: a constraint, a value too big, a type it refuses.
const SQLITE_ROW_CODES = /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH)/;

/**
 * Does the store refuse this row itself — so that writing it again can never succeed — rather than fail for a
 * while (a lost connection, a timeout, a busy or full database, a thread that stopped)? PostgreSQL: SQLSTATE class
 * 22 (data exception: a value out of range, too long, not valid text) or 23 (integrity constraint). SQLite: a
 * constraint, a value too big or of the wrong type; and a value the driver cannot bind (its TypeError and
 * RangeError). Anything else counts as the store's passing fault: a group commit keeps such rows queued.
 */
export function isRowRefusal(e: unknown): boolean {
  // (The driver's TypeError for a closed connection is the store's state, not the row's.)
  if (e instanceof TypeError || e instanceof RangeError) return !/connection is not open/i.test(e.message);
  const code = (e as CodedError | null)?.code;
  if (typeof code !== 'string') return false;
  if (code.length === 5 && (code.startsWith('22') || code.startsWith('23'))) return true;
  return SQLITE_ROW_CODES.test(code);
}

// Connection failures, as the drivers and the network report them: SQLSTATE class 08 (connection exception),
// 57P01–57P03 (the server shutting down or not yet accepting), 53300 (no connection slot left), and the
// socket's own codes.
const UNREACHABLE = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * Is this the store being out of reach (down, restarting, unreachable) rather than a fault of the request or of
 * the code? Then the caller can only retry later. node-postgres's errors for a connection that ended or could not
 * open within its time carry no code, only their message.
 */
export function isStoreUnreachable(e: unknown): boolean {
  const err = e as CodedError | null;
  const code = err?.code;
  if (typeof code === 'string' && (UNREACHABLE.has(code) || (code.length === 5 && code.startsWith('08')))) return true;
  return /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/i.test(
    String(err?.message ?? ''),
  );
}
