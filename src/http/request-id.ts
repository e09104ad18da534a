import { randomBytes } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-gateway-request-id';

// 16 random bytes per id is plenty; prefix keeps it recognisable in logs and bills.
let pool = randomBytes(16 * 256);
let offset = 0;

export function newRequestId(): string {
  if (offset + 16 > pool.length) {
    pool = randomBytes(16 * 256);
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + 16);
  offset += 16;
  return `req_${id}`;
}
