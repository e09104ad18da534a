// Family B (/v1) on Fastify: every /v1 route but the text lane's (front/route-table.ts).
import type { Scope } from '../../front/route-row.ts';
import { registerMultipart } from '../../multipart.ts';

/** Multipart bodies across /v1: image edits and video creation take them, as the openai SDK sends them. */
export const V1_SCOPE: Scope = { prefix: '/v1', setup: (scope) => registerMultipart(scope) };
