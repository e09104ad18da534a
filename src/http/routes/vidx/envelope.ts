// The family A success envelope. Errors get the same shape from the global error handler
// (`{code, message, request_id, data: null}` with the vendor code), so routes just throw.
import type { FastifyRequest } from 'fastify';

export interface Envelope<T> {
  code: 0;
  message: 'success';
  request_id: string;
  data: T;
}

export function ok<T>(req: FastifyRequest, data: T): Envelope<T> {
  return { code: 0, message: 'success', request_id: req.id, data };
}
