// The per-request state on Fastify's request object (the lane's exchange carries the same): see core/call.ts.
import type { RequestState } from '../core/call.ts';

export type { RequestState };

declare module 'fastify' {
  interface FastifyRequest {
    state: RequestState;
  }
}
