// Schemas of the admin API: metering, billing, tokens, audit (channels: admin-schemas-channels.ts).
import { str, int, arr, obj, pathParam, query, microSum, type Schema } from './schema.ts';
import { tokenBalanceFields } from './token-balance-schema.ts';
export { microSum };
import { TASK_STATES } from '../../tasks/types.ts';
import { micro } from './admin-schemas-money.ts';

export {
  channelCheck,
  channelCost,
  channelKind,
  channelView,
  keyFieldSchemas,
  modelLimits,
} from './admin-schemas-channels.ts';
export {
  micro,
  tokenPriceTier,
  price,
  priceView,
  priceChange,
  billLine,
  billModelLine,
  billAccountLine,
} from './admin-schemas-money.ts';
import { LEDGER_CSV_HEADER, REQUEST_LOG_CSV_HEADER } from '../../core/admin/lists.ts';
export const LEDGER_CSV = LEDGER_CSV_HEADER.join(',');
export const REQUEST_LOG_CSV = REQUEST_LOG_CSV_HEADER.join(',');

export const timeParam = (name: 'since' | 'until') =>
  query(
    name,
    str(),
    `${name === 'since' ? 'Inclusive lower' : 'Exclusive upper'} bound on created_at: milliseconds since the epoch or an ISO 8601 date/date-time (UTC unless a zone is given)`,
  );
export const limitParam = query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Rows per page');
export const ledgerEntry = obj(
  {
    id: int(),
    idempotency_key: str('request id (synchronous calls) or <task id>:success'),
    token_id: str(),
    model: str('billing model'),
    kind: str(),
    quantities: obj(),
    unit_prices: obj(),
    amount: micro(),
    request_id: { type: ['string', 'null'] },
    task_id: { type: ['string', 'null'], description: 'the public task id the client was given' },
    upstream_request_id: { type: ['string', 'null'] },
    created_at: int('ms'),
    account_id: { type: ['string', 'null'], description: 'the account the charge also counted against' },
    list_amount: {
      type: ['integer', 'null'],
      description: 'the amount at list (catalogue) price when a price group priced the line; null = the amount',
    },
    price_group: { type: ['string', 'null'] },
    upstream_cost: micro('what the charge cost upstream (its channel states a cost); absent: unknown'),
  },
  ['id', 'idempotency_key', 'token_id', 'model', 'kind', 'amount', 'created_at'],
);
export const requestLogEntry = obj(
  {
    request_id: str(),
    token_id: { type: ['string', 'null'] },
    model: { type: ['string', 'null'] },
    endpoint: str(),
    method: str(),
    status: int('HTTP status'),
    latency_ms: int(),
    ttfb_ms: {
      type: ['integer', 'null'],
      description: 'ms from arrival to the first byte of the answer; null when nothing was written',
    },
    channel_id: { type: ['string', 'null'], description: 'the channel whose attempt answered' },
    attempts: {
      type: ['array', 'null'],
      description: 'every upstream attempt in order (failovers included); null when no upstream call was made',
      items: obj(
        {
          channel_id: str(),
          outcome: { type: 'string', enum: ['ok', 'error'] },
          error_code: { type: ['string', 'null'] },
          latency_ms: { type: 'number' },
        },
        ['channel_id', 'outcome', 'error_code', 'latency_ms'],
      ),
    },
    usage: {},
    amount: micro('micro-units computed on the request path (the ledger is the authority)'),
    upstream_request_id: { type: ['string', 'null'] },
    error_code: { type: ['string', 'null'] },
    upstream_error: {
      type: ['string', 'null'],
      description:
        "the upstream's own words (status, code, message) when it refused the call; never shown to the client",
    },
    created_at: int('ms'),
  },
  [
    'request_id',
    'endpoint',
    'method',
    'status',
    'latency_ms',
    'ttfb_ms',
    'channel_id',
    'attempts',
    'amount',
    'created_at',
  ],
);
export const cursorParam = query(
  'cursor',
  str(),
  'Page on: next_cursor of the previous page, passed back as it is (opaque)',
);
export const formatParam = (what: string) =>
  query(
    'format',
    { type: 'string', enum: ['json', 'csv'], default: 'json' },
    `csv: ${what} as RFC 4180 with a header row; text starting with = + - @ is prefixed with ' so a spreadsheet opens it as text; the next page's cursor is in the X-Next-Cursor header`,
  );
/** A JSON list page: `limit` rows at most, `next_cursor` to pass back while has_more. */
export const listPage = (item: Schema, extra: Record<string, Schema> = {}, required: string[] = []) =>
  obj({ data: arr(item), has_more: { type: 'boolean' }, next_cursor: str('present when has_more'), ...extra }, [
    'data',
    'has_more',
    ...required,
  ]);
/** A list page: JSON, or CSV with the header `csvHeader`. */
export const listAnswer = (item: Schema, csvHeader: string, extra: Record<string, Schema> = {}) => ({
  description: 'Success',
  content: {
    'application/json': {
      schema: obj(
        { data: arr(item), has_more: { type: 'boolean' }, next_cursor: str('present when has_more'), ...extra },
        ['data', 'has_more'],
      ),
    },
    'text/csv': { schema: str(`header: ${csvHeader}`) },
  },
});
export const adminTaskView = obj(
  {
    id: str(),
    family: { type: 'string', enum: ['v1', 'vidx'] },
    kind: str(),
    state: {
      type: 'string',
      enum: [...TASK_STATES],
      description:
        'waiting: held in the gateway for a free parallel-task slot of its upstream account (shown to the client as submitted)',
    },
    token_id: str(),
    model: str(),
    channel_id: str(),
    upstream_task_id: { type: ['string', 'null'] },
    upstream_status: { type: ['string', 'null'] },
    progress: { type: ['integer', 'null'] },
    error: {
      type: ['object', 'null'],
      properties: { code: str(), message: str(), upstream_message: str("the upstream's own words, for operators") },
    },
    hold_amount: micro("held against the token's quota while open"),
    poll_attempts: int(),
    next_poll_at: int('ms'),
    request_id: str(),
    created_at: int('ms'),
    updated_at: int('ms'),
    finished_at: { type: ['integer', 'null'], description: 'ms' },
    slot_queue: {
      type: ['object', 'null'],
      properties: { account: str(), model: str('upstream model version') },
      description:
        'the parallel-task queue the task is counted in (per upstream account and model version); null: none',
    },
  },
  ['id', 'kind', 'state', 'token_id', 'model', 'channel_id', 'created_at'],
);
export const auditEntry = obj({
  id: int(),
  at: int('ms'),
  actor: str(),
  action: str('token.create, channel.disable, price.set, …'),
  target: { type: ['string', 'null'] },
  detail: {},
  request_id: { type: ['string', 'null'] },
});
export const tokenView = obj({
  id: str(),
  name: str(),
  prefix: str('first characters of the secret'),
  models: { type: ['array', 'null'], items: str() },
  quota: { type: ['integer', 'null'], description: 'micro-units; null = none of its own (see account)' },
  spent: micro(),
  held: micro(),
  ...tokenBalanceFields,
  rpm_limit: { type: ['integer', 'null'], description: 'requests per minute' },
  tpm_limit: { type: ['integer', 'null'], description: 'tokens (input + output) per minute' },
  concurrency_limit: { type: ['integer', 'null'], description: 'calls in flight' },
  expires_at: { type: ['integer', 'null'], description: 'ms' },
  revoked_at: { type: ['integer', 'null'], description: 'ms' },
  created_at: int('ms'),
  previous_secret_until: {
    type: ['integer', 'null'],
    description: 'after a rotation with a grace period: until when (ms) the previous secret still works',
  },
  callback_secret_issued_at: {
    type: ['integer', 'null'],
    description:
      'when (ms) the current callback secret was shown (creation or rotation); null: never shown (a token older than callback secrets: rotate it to issue one)',
  },
  previous_callback_secret_until: {
    type: ['integer', 'null'],
    description:
      'after a callback-secret rotation: until when (ms) callbacks are signed with the previous callback secret too',
  },
  account_id: { type: ['string', 'null'], description: 'the account that owns the token' },
  budgets: arr(obj({ period: str(), limit: micro() }), "the token's own budgets"),
});
export const modelParam = pathParam('model', 'Public model name (an alias or dated snapshot means its base model)');
