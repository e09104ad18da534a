// Building blocks of the OpenAPI 3.1 document. As the contract says, request and response bodies are free-form
// objects; the documented fields are listed as properties (additionalProperties stays open).
import type { Family } from '../../errors/render.ts';

export type Schema = Record<string, unknown>;
export type Operation = Record<string, unknown>;

export const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
export const int = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
/** A sum over ledger lines: exact, so past 2^53 − 1 a string of its decimal digits (vocabulary/exact-amount.ts). */
export const microSum = (description = 'integer micro-units'): Schema => ({
  type: ['integer', 'string'],
  pattern: '^-?[0-9]+$',
  description: `${description}; a sum past 9007199254740991 (2^53 − 1) is given as a string of its decimal digits, exactly`,
});
export const num = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
export const arr = (items: Schema, description?: string): Schema => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});
export const obj = (properties: Record<string, Schema> = {}, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: true,
  properties,
  ...(required.length ? { required } : {}),
});
/** A name kept for one release beside its replacement (docs/api.md#deprecated-names). */
export const deprecated = (schema: Schema, replacement: string): Schema => ({
  ...schema,
  deprecated: true,
  description: `deprecated: the same as \`${replacement}\`, emitted beside it for one release`,
});
/** A count of ledger lines: `entries`, and `requests`, its former name on the usage answers. */
export const ledgerCountFields = (description = 'ledger lines (charges) counted'): Record<string, Schema> => ({
  entries: int(description),
  requests: deprecated(int(), 'entries'),
});
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/**
 * Sent on every answer to a token with `rpm_limit` (the requests trio) or `tpm_limit` (the tokens trio): OpenAI's
 * names on /v1 and family A, Anthropic's on the /v1/messages routes.
 */
export const RATE_LIMIT_HEADERS: Record<string, { description: string; schema: Schema }> = Object.fromEntries(
  (['requests', 'tokens'] as const).flatMap((kind) => {
    const left = `${kind === 'requests' ? 'Requests' : 'Tokens'} left in the current window`;
    return [
      [`x-ratelimit-limit-${kind}`, { description: `The token's ${kind} per minute`, schema: str() }],
      [`x-ratelimit-remaining-${kind}`, { description: left, schema: str() }],
      [
        `x-ratelimit-reset-${kind}`,
        { description: 'Time until the window resets, e.g. `850ms`, `20s`, `1m0s`', schema: str() },
      ],
      [
        `anthropic-ratelimit-${kind}-limit`,
        { description: `/v1/messages routes: the token's ${kind} per minute`, schema: str() },
      ],
      [
        `anthropic-ratelimit-${kind}-remaining`,
        { description: `/v1/messages routes: ${left.toLowerCase()}`, schema: str() },
      ],
      [
        `anthropic-ratelimit-${kind}-reset`,
        { description: '/v1/messages routes: when the window resets (RFC 3339)', schema: str() },
      ],
    ];
  }),
);

// Every status a code in src/errors/codes.ts can have.
export const FAMILY_B_ERROR_STATUSES = [
  '400',
  '401',
  '403',
  '404',
  '405',
  '409',
  '410',
  '413',
  '415',
  '422',
  '429',
  '500',
  '502',
  '503',
  '504',
];
export const FAMILY_A_ERROR_STATUSES = FAMILY_B_ERROR_STATUSES;

export function errorResponses(family: Family): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const name = family === 'vidx' ? 'FamilyAError' : family === 'messages' ? 'MessagesError' : 'FamilyBError';
  for (const s of family === 'vidx' ? FAMILY_A_ERROR_STATUSES : FAMILY_B_ERROR_STATUSES)
    out[s] = { $ref: `#/components/responses/${name}` };
  return out;
}

/** The request id under its three names (src/http/front/rules.ts REQUEST_ID_HEADERS), on every answer. */
export const REQUEST_ID_HEADERS = {
  'X-Gateway-Request-Id': { $ref: '#/components/headers/RequestId' },
  'x-request-id': { $ref: '#/components/headers/RequestId' },
  'request-id': { $ref: '#/components/headers/RequestId' },
};

export const jsonBody = (schema: Schema, multipart = false) => ({
  required: true,
  content: { 'application/json': { schema }, ...(multipart ? { 'multipart/form-data': { schema } } : {}) },
});
export const ok = (schema: Schema, description = 'Success', contentType = 'application/json') => ({
  description,
  headers: REQUEST_ID_HEADERS,
  content: { [contentType]: { schema } },
});
export const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  schema: str(),
  description,
});
export const query = (name: string, schema: Schema, description: string) => ({
  name,
  in: 'query',
  required: false,
  schema,
  description,
});
export const PAGE = [
  query('pageNum', { type: 'integer', minimum: 1, maximum: 1000, default: 1 }, 'Page number'),
  query('pageSize', { type: 'integer', minimum: 1, maximum: 500, default: 30 }, 'Tasks per page'),
];

export function familyB(summary: string, op: Omit<Operation, 'summary'>, okResponse: unknown): Operation {
  return {
    tags: ['family B (/v1)'],
    summary,
    security: [{ bearer: [] }],
    ...op,
    responses: { '200': okResponse, ...errorResponses('v1') },
  };
}
/** A messages route (/v1/messages …): family B, its errors in the messages API's shape. */
export function messagesOp(summary: string, op: Omit<Operation, 'summary'>, okResponse: unknown): Operation {
  return {
    tags: ['family B (/v1)'],
    summary,
    security: [{ bearer: [] }],
    ...op,
    responses: { '200': okResponse, ...errorResponses('messages') },
  };
}
export function familyA(summary: string, op: Omit<Operation, 'summary'>, okResponse: unknown): Operation {
  return {
    tags: ['family A (/vidx/v1)'],
    summary,
    security: [{ bearer: [] }],
    ...op,
    responses: { '200': okResponse, ...errorResponses('vidx') },
  };
}
export function admin(
  summary: string,
  op: Omit<Operation, 'summary'> = {},
  okSchema: Schema = obj(),
  status = '200',
  okResponse?: unknown,
): Operation {
  return {
    tags: ['admin'],
    summary,
    security: [{ adminBearer: [] }],
    ...op,
    responses: { [status]: okResponse ?? ok(okSchema), ...errorResponses('v1') },
  };
}
