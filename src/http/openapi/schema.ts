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

export const envelope = (data: Schema): Schema =>
  obj({ code: int('0 on success'), message: str('`success` on success'), request_id: str(), data }, [
    'code',
    'message',
    'request_id',
  ]);
export const taskStatus: Schema = { type: 'string', enum: ['submitted', 'processing', 'succeed', 'failed'] };
export const taskInfo = obj({ external_task_id: str("the caller's external_task_id, when given") });
// The creation reply's data.
export const taskData = obj(
  {
    task_id: str('Our task id (task_…)'),
    task_status: taskStatus,
    task_info: taskInfo,
    created_at: int('ms'),
    updated_at: int('ms'),
  },
  ['task_id', 'task_status', 'created_at', 'updated_at'],
);
export const resultVideo = obj({
  id: str('Our video id (video_<task>_<n>)'),
  url: str(),
  watermark_url: str(),
  duration: str('seconds'),
  session_id: str('edit tasks'),
});
// Query, list item and callback body: the creation fields plus the task's state and result (ids ours, model canonical).
export const taskQueryData = obj(
  {
    task_id: str(),
    task_status: taskStatus,
    task_status_msg: str('why the task failed (sanitised); empty otherwise'),
    task_info: taskInfo,
    model_name: str('canonical public model name'),
    session_id: str('edit tasks: our session id'),
    watermark_info: obj(),
    task_result: obj({ videos: arr(resultVideo, 'on succeed') }),
    created_at: int('ms'),
    updated_at: int('ms'),
  },
  ['task_id', 'task_status', 'created_at', 'updated_at'],
);
export const point = obj({ x: num('in [0, 1]'), y: num('in [0, 1]') }, ['x', 'y']);
export const selection = obj(
  {
    session_id: str(),
    frame_index: { type: 'integer', minimum: 0, description: 'frame number' },
    points: { ...arr(point), minItems: 1, maxItems: 10 },
  },
  ['session_id', 'frame_index', 'points'],
);
export const selectionData = (res?: Schema): Schema =>
  obj({ status: int('0 = accepted'), session_id: str('our session id'), ...(res ? { res } : {}) });
export const rleMask = obj({
  object_id: int(),
  rle_mask: obj({ size: arr(int(), '[height, width]'), counts: str('COCO-style compressed RLE') }),
  png_mask: obj({ size: arr(int()), base64: str() }),
});
export const modeEnum = (def: 'std' | 'pro'): Schema => ({ type: 'string', enum: ['std', 'pro'], default: def });
export const usage = obj({
  prompt_tokens: int(),
  completion_tokens: int(),
  input_tokens: int(),
  output_tokens: int(),
  total_tokens: int(),
  prompt_tokens_details: obj({ cached_tokens: int(), cache_creation_input_tokens: int() }),
  input_tokens_details: obj({ cached_tokens: int() }),
  cache_read_input_tokens: int(),
  cache_creation_input_tokens: int(),
});
export const chatMessage = obj(
  {
    role: str(),
    content: {
      oneOf: [
        str(),
        arr(
          obj({
            type: str('text | image_url'),
            text: str(),
            image_url: obj({ url: str('http(s) URL or data:image/… URI') }),
          }),
        ),
      ],
    },
  },
  ['role', 'content'],
);
export const videoStatus: Schema = {
  type: 'string',
  enum: ['queued', 'in_progress', 'processing', 'completed', 'success', 'failed', 'cancelled'],
  description: 'clients should accept every value listed',
};
export const videoTask = obj(
  {
    id: str('equals video_id'),
    video_id: str("our video id, never the upstream's"),
    object: { const: 'video' },
    model: str(),
    status: videoStatus,
    progress: int('0–100'),
    created_at: int('unix seconds'),
    completed_at: { type: ['integer', 'null'], description: 'unix seconds' },
    expires_at: { type: ['integer', 'null'], description: 'unix seconds: when the result URL expires' },
    url: str('result URL, once completed'),
    prompt: { type: ['string', 'null'] },
    seconds: { type: ['string', 'null'] },
    size: { type: ['string', 'null'] },
    resolution: { type: ['string', 'null'] },
    error: { oneOf: [{ type: 'null' }, obj({ code: str(), message: str('sanitised') })] },
    upstream_request_id: str(),
  },
  ['id', 'video_id', 'object', 'status'],
);
export const imageResult = obj({
  created: int('unix seconds'),
  data: arr(obj({ url: str(), b64_json: str() })),
  size: str('<width>x<height>'),
  usage: obj({ images: int('images returned (and charged)') }),
});
export const imageFields = {
  model: str(),
  prompt: str(),
  size: str('<width>x<height>, 512x512 to 2048x2048 pixels; omitted or `auto` = upstream default'),
  response_format: { type: 'string', enum: ['url', 'b64_json'], default: 'url' },
  n: { type: 'integer', minimum: 1, maximum: 6, default: 1 },
  negative_prompt: str(),
  seed: { type: 'integer', minimum: 0, maximum: 2147483647 },
  watermark: { type: 'boolean', default: false },
  prompt_extend: { type: 'boolean' },
};

/** A token's balance and charges per model over a period (GET /v1/usage, GET /admin/tokens/{id}/usage). */
const BUDGET_STATUS = obj({
  period: str(),
  limit: int(),
  period_start: int('ms'),
  resets_at: int('ms'),
  spent: int(),
  held: int(),
  remaining: int(),
});
export const tokenUsageView = obj(
  {
    object: { const: 'token_usage' },
    token: obj({
      id: str(),
      name: str(),
      models: { type: ['array', 'null'], items: str() },
      expires_at: { type: ['integer', 'null'] },
    }),
    unit: str(),
    balance: obj({
      quota: { type: ['integer', 'null'], description: 'micro-units; null = unlimited' },
      used: int('charged so far'),
      reserved: int('held by running calls and tasks'),
      remaining: { type: ['integer', 'null'], description: 'quota - used - reserved, at least 0' },
    }),
    period: obj({ since: int('ms'), until: int('ms') }),
    usage: obj({
      data: arr(obj({ model: str(), requests: int(), amount: microSum('micro-units'), amount_units: str() })),
      total: obj({ requests: int(), amount: microSum(), amount_units: str() }),
      credited: microSum('top-ups in the period'),
    }),
    budgets: arr(BUDGET_STATUS, "the token's own budgets in their current period"),
    account: {
      oneOf: [
        obj({
          id: str(),
          name: str(),
          balance: obj({
            quota: { type: ['integer', 'null'] },
            used: int(),
            reserved: int(),
            remaining: { type: ['integer', 'null'] },
          }),
          budgets: arr(BUDGET_STATUS),
          time_zone: { type: ['string', 'null'] },
          expires_at: { type: ['integer', 'null'] },
        }),
        { type: 'null' },
      ],
      description: "the token's account: its balance and budgets; null when the token has none",
    },
  },
  ['object', 'balance', 'usage'],
);
