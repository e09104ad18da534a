import { randomBytes } from 'node:crypto';
import { integerText } from '../contracts/number-text.ts';

export const REQUEST_ID_HEADER = 'x-gateway-request-id';

// `req_` + 32 hex digits: 12 of milliseconds since the epoch, then 20 random (80 bits, plenty to be unique).
// The time prefix keeps ids roughly ordered, so the request-log primary key and the ledger's idempotency key
// (both the request id) grow at the right edge of their B-trees instead of touching random pages on every
// group commit — that was most of SQLite's cost per request under load.
const RANDOM_BYTES = 10;
let pool = randomBytes(RANDOM_BYTES * 512);
let offset = 0;
let lastMs = 0;
let timeHex = '';

export function newRequestId(): string {
  if (offset + RANDOM_BYTES > pool.length) {
    pool = randomBytes(RANDOM_BYTES * 512);
    offset = 0;
  }
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    timeHex = integerText(now, 16).padStart(12, '0');
  }
  const rnd = pool.toString('hex', offset, offset + RANDOM_BYTES);
  offset += RANDOM_BYTES;
  return `req_${timeHex}${rnd}`;
}
