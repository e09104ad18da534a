// Family A (/vidx/v1): the vendor-style video API; its context is built in src/compose.ts. Upstream completion
// notices come to /vidx/callbacks (no bearer token: upstream-callback.ts).
import type { Scope } from '../../front/route-row.ts';

export const VIDX_SCOPE: Scope = { prefix: '/vidx/v1' };
export const CALLBACK_SCOPE: Scope = { prefix: '/vidx/callbacks' };
