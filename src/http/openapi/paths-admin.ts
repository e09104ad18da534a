// OpenAPI paths of the admin API (bearer TOLLWAY_ADMIN_KEY) and the operations endpoints.
import { str, int, arr, obj, jsonBody, ok, pathParam, query, admin, tokenUsageView, type Operation, type Schema } from './schema.ts';
import { listPage, micro, microSum, timeParam, limitParam, price, priceView, priceChange, ledgerEntry, requestLogEntry, billLine, billModelLine, billAccountLine, auditEntry, tokenView, tokenPatch, channelView, channelPatch, channelCheck, modelParam, cursorParam, formatParam, listAnswer, LEDGER_CSV, REQUEST_LOG_CSV } from './admin-schemas.ts';

const tokenId = [pathParam('id', 'Token id')];
const CALLBACK_SECRET = str('whsec_ + base64 of 32 random bytes: verifies the token\'s task callbacks (Standard Webhooks); shown once');
const channelId = [pathParam('id', 'Channel id')];

export function adminPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/tokens': {
      post: admin('Create a client token (the secret is shown only in this answer; unknown fields are refused)', {
        requestBody: jsonBody({ ...obj({
          name: str(), models: arr(str(), 'allow-list of public model names; absent = every model'), quota: micro('micro-units; absent = unlimited'), expires_at: int('ms since the epoch, in the future'),
          rpm_limit: { type: 'integer', minimum: 1, maximum: 1000000, description: 'requests per minute' },
          tpm_limit: { type: 'integer', minimum: 1, maximum: 1000000000, description: 'tokens (input + output) per minute, counted when a call settles' },
          concurrency_limit: { type: 'integer', minimum: 1, maximum: 100000 },
          account_id: str('the account that owns the token: its quota, budgets and price group apply too'),
          budgets: arr(obj({ period: { type: 'string', enum: ['day', 'week', 'month'] }, limit: micro() }, ['period', 'limit']), 'the token\'s own budgets'),
        }, ['name']), additionalProperties: false }),
      }, obj({ id: str(), name: str(), token: str('the secret, shown once'), callback_secret: CALLBACK_SECRET, models: { type: ['array', 'null'], items: str() }, quota: { type: ['integer', 'null'] }, expires_at: { type: ['integer', 'null'] }, created_at: int('ms') }, ['id', 'name', 'token', 'callback_secret', 'models', 'quota', 'expires_at', 'created_at']), '201'),
      get: admin('List tokens in creation order, a page at a time (never the secret; unknown parameters are refused)', { parameters: [limitParam, cursorParam] }, obj({ data: arr(tokenView), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') })),
    },
    '/admin/tokens/{id}': {
      get: admin('One token', { parameters: tokenId }, tokenView),
      patch: admin('Edit a token (applies on its next request; unknown fields are refused)', { parameters: tokenId, requestBody: jsonBody(tokenPatch) }, tokenView),
      delete: admin('Revoke a token (takes effect at once)', { parameters: tokenId }, tokenView),
    },
    '/admin/tokens/{id}/usage': {
      get: admin('A token\'s balance and its charges per model for a period (default: the current UTC month), from the ledger: what its holder reads at GET /v1/usage', {
        parameters: [...tokenId, timeParam('since'), query('until', str(), 'Exclusive upper bound (at most 367 days after since): ms since the epoch or an ISO 8601 date/date-time')],
      }, tokenUsageView),
    },
    '/admin/tokens/{id}/topup': {
      post: admin('Add to a token\'s quota: one ledger line of kind credit, in the same transaction', {
        parameters: tokenId,
        requestBody: jsonBody({ ...obj({ amount: { type: 'integer', minimum: 1, description: 'micro-units' }, idempotency_key: str('a retried top-up with the same key credits once') }, ['amount']), additionalProperties: false }),
      }, { ...tokenView, properties: { ...(tokenView.properties as Schema), topup: obj({ amount: micro(), credited: { type: 'boolean', description: 'false when the idempotency key was used before' } }) } }),
    },
    '/admin/tokens/{id}/rotate': {
      post: admin('A new secret for the same token (shown only in this answer); the old one works for grace_ms more', {
        parameters: tokenId,
        requestBody: { ...jsonBody({ ...obj({ grace_ms: { type: 'integer', minimum: 0, maximum: 604800000, default: 0 } }), additionalProperties: false }), required: false },
      }, { ...tokenView, properties: { ...(tokenView.properties as Schema), token: str('the new secret, shown once') } }),
    },
    '/admin/tokens/{id}/callback-secret/rotate': {
      post: admin('A new callback secret for the token (shown only in this answer): its task callbacks are signed with it from now on, and with the one it replaces too for grace_ms more (a second v1 signature in webhook-signature)', {
        parameters: tokenId,
        requestBody: { ...jsonBody({ ...obj({ grace_ms: { type: 'integer', minimum: 0, maximum: 604800000, description: 'how long the replaced secret keeps signing; absent = TOLLWAY_CALLBACK_SECRET_GRACE_MS (default 24 h); 0 = it stops at once' } }), additionalProperties: false }), required: false },
      }, { ...tokenView, properties: { ...(tokenView.properties as Schema), callback_secret: CALLBACK_SECRET } }),
    },
    '/admin/channels': {
      post: admin('Add an upstream channel (keys encrypted at rest, never shown again; unknown fields, and the other kind\'s key fields, are refused)', {
        requestBody: jsonBody({ ...obj({
          name: str(), kind: { type: 'string', enum: ['dashscope', 'kling'] }, base_url: str('Beijing region only'), api_key: str('dashscope'), access_key: str('kling'), secret_key: str('kling'),
          models: arr(str()), priority: { type: 'integer', minimum: -1000, maximum: 1000 }, weight: { type: 'integer', minimum: 1, maximum: 1000 },
          account: { type: ['string', 'null'], description: 'the upstream account the key belongs to: channels naming one account share its limits' }, task_slots: { type: ['integer', 'null'], minimum: 1, maximum: 10000, description: 'parallel tasks per model version the account allows' },
        }, ['name', 'kind']), additionalProperties: false }),
      }, channelView, '201'),
      get: admin('List channels in creation order, a page at a time (never the keys; unknown parameters are refused)', { parameters: [limitParam, cursorParam] }, listPage(channelView)),
    },
    '/admin/channels/{id}': {
      get: admin('One channel: masked keys and this instance\'s breaker state', { parameters: channelId }, channelView),
      patch: admin('Edit a channel (keys write-only; kind cannot change; unknown fields are refused)', { parameters: channelId, requestBody: jsonBody(channelPatch) }, channelView),
      delete: admin('Disable a channel', { parameters: channelId }, channelView),
    },
    '/admin/channels/{id}/test': {
      post: admin('Check a channel with one cheap authenticated upstream call (nothing generated or billed)', { parameters: channelId }, channelCheck),
    },
    '/admin/channels/{id}/disable': { post: admin('Disable a channel', { parameters: [pathParam('id', 'Channel id')] }, channelView) },
    '/admin/channels/{id}/enable': { post: admin('Enable a channel', { parameters: [pathParam('id', 'Channel id')] }, channelView) },
    '/admin/audit': {
      get: admin('Audit log: every admin action, newest first (unknown parameters are refused)', {
        parameters: [
          query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Entries to return'),
          query('cursor', str(), 'next_cursor of the previous page'),
          query('action', str(), 'Only this action (e.g. token.create)'),
          query('actor', str(), 'Only this actor: admin, cli, meter, console (every console session) or console:<session id>'),
          query('target', str(), 'Only entries about this id'),
        ],
      }, obj({ data: arr(auditEntry), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') })),
    },
    '/admin/stats': {
      get: admin('Overview figures: requests, errors (status >= 400) and spend per time bucket, and the top 5 models and tokens (and accounts with group_by=account), from the request log; unknown parameters are refused', {
        parameters: [
          query('window', { type: 'string', enum: ['1h', '24h', '30d'], default: '24h' }, 'Last hour (1-minute buckets), day (15 minutes) or 30 days (6 hours)'),
          query('group_by', { type: 'string', enum: ['token', 'account'], default: 'token' }, 'account: top_accounts too (each token\'s figures count for the account it belongs to now)'),
        ],
      }, obj({
        window: str(), since: int('ms, inclusive'), until: int('ms, exclusive'), bucket_ms: int(),
        series: obj({ t: arr(int(), 'bucket start, ms'), requests: arr(int()), errors: arr(int()), spend: arr(micro()) }),
        totals: obj({ requests: int(), errors: int(), spend: micro() }),
        top_models: arr(obj({ model: { type: ['string', 'null'] }, requests: int(), errors: int(), spend: micro() })),
        top_tokens: arr(obj({ token_id: { type: ['string', 'null'] }, name: { type: ['string', 'null'] }, requests: int(), errors: int(), spend: micro() })),
        top_accounts: arr(obj({ account_id: { type: ['string', 'null'], description: 'null: tokens of no account' }, name: { type: ['string', 'null'] }, requests: int(), errors: int(), spend: micro() }), 'present with group_by=account'),
      })),
    },
    '/admin/health': {
      get: admin('Upstream health: each channel\'s breaker (this instance\'s view) and its traffic in the last 5 minutes from the request log (requests, 5xx errors, mean latency), and the open async tasks by state', {}, obj({
        recent_ms: int(),
        channels: arr(obj({ id: str(), name: str(), kind: str(), enabled: { type: 'boolean' }, breaker: obj({ state: str('closed, open or half-open') }), recent: obj({ requests: int(), errors: int(), error_rate: { type: 'number' }, mean_latency_ms: { type: ['integer', 'null'] } }) })),
        open_tasks: obj({ waiting: int(), submitting: int(), queued: int(), in_progress: int() }),
      })),
    },
    '/admin/reconcile': {
      get: admin('The ledger against the stored upstream usage for a period, by day, model and channel, with every discrepancy listed (clean when every list is empty and the difference is 0); queued charges are flushed first', {
        parameters: [
          query('from', str(), 'Inclusive start: milliseconds since the epoch or an ISO 8601 date/date-time (default: one day before `to`)'),
          query('to', str(), 'Exclusive end, the same forms (default: now)'),
        ],
      }, obj({
        from: int(),
        to: int(),
        groups: arr(obj({ day: str('YYYY-MM-DD (UTC)'), model: str(), channel: str('the upstream account for tasks; "-" for calls answered at once'), ledger_amount: microSum(), reported_amount: microSum(), difference: microSum('ledger − reported, micro-units'), charges: int() })),
        difference: microSum('the sum of the groups\' differences; 0 when the ledger and the stored usage agree'),
        mismatches: arr(obj({ key: str(), model: str(), ledger_amount: micro(), reported_amount: { type: ['integer', 'null'] }, reason: str() })),
        open_holds: arr(obj({ key: str(), token_id: str(), amount: micro(), age_ms: int(), reason: str() })),
        tasks_charged_without_success: arr(obj({ task_id: str(), state: str(), amount: micro() })),
        successes_without_charge: arr(obj({ task_id: str(), model: str() })),
        lost_submits: arr(obj({ task_id: str(), token_id: str(), kind: str(), model: str(), channel: str(), created_at: int(), reason: str() })),
      })),
    },
    '/admin/ledger': {
      get: admin('Ledger entries (the billing authority), newest first; queued charges are flushed first', {
        parameters: [
          query('token_id', str(), 'Only this token'),
          query('model', str(), 'Only this billing model'),
          query('request_id', str(), 'Only this request'),
          query('task_id', str(), 'Only this task (the public id the client was given)'),
          timeParam('since'),
          timeParam('until'),
          limitParam,
          cursorParam,
          query('before_id', { type: 'integer', minimum: 1 }, 'Page on: entries with a smaller id (next_before_id of the previous page; the same position as cursor)'),
          formatParam('the page'),
        ],
      }, obj(), '200', listAnswer(ledgerEntry, LEDGER_CSV, { next_before_id: int('present when has_more') })),
    },
    '/admin/logs': {
      get: admin('Request log (one row per request: channel, upstream attempts, time to first byte), newest first; unknown parameters are refused', {
        parameters: [
          query('request_id', str(), 'Only this request'),
          query('token_id', str(), 'Only this token'),
          query('model', str(), 'Only this public model'),
          query('status', { type: 'string', pattern: '^[1-5](\\d\\d|xx)$' }, 'Only this HTTP status (429) or class (5xx)'),
          timeParam('since'),
          timeParam('until'),
          limitParam,
          cursorParam,
          formatParam('the page'),
        ],
      }, obj(), '200', listAnswer(requestLogEntry, REQUEST_LOG_CSV)),
    },
    '/admin/bills': {
      get: admin('Bills: ledger totals per token per UTC day or month, each with its models and top-ups; by=model: a line per model; by=account: a line per account', {
        parameters: [
          query('token_id', str(), 'Only this token'),
          query('account_id', str(), 'Only the ledger lines that counted against this account (its tokens\' charges and its own top-ups)'),
          query('model', str(), 'Only this billing model'),
          query('period', { type: 'string', enum: ['day', 'month'], default: 'month' }, 'UTC day or month'),
          timeParam('since'),
          timeParam('until'),
          query('format', { type: 'string', enum: ['json', 'csv'], default: 'json' }, 'csv: RFC 4180 with a header row'),
          query('by', { type: 'string', enum: ['token', 'model', 'account'], default: 'token' }, 'model: a line per token, period and model, and one (kind credit) for the top-ups; account: a line per account and period (account_id null: lines of no account)'),
        ],
      }, obj(), '200', {
        ...ok(obj()),
        content: {
          'application/json': {
            schema: obj({
              object: { const: 'bill' }, period: { type: 'string', enum: ['day', 'month'] }, by: { type: 'string', enum: ['model', 'account'], description: 'present with by=model or by=account' }, unit: str(),
              data: { type: 'array', items: { anyOf: [billLine, billModelLine, billAccountLine] }, description: 'bill lines; with by=model, model lines; with by=account, account lines' },
              total: obj({ entries: int(), amount: microSum(), amount_units: str(), credit: microSum('top-ups credited') }),
            }, ['object', 'period', 'data', 'total']),
          },
          'text/csv': { schema: str('header: token_id,token_name,period,period_start,entries,amount_micro,amount_units,credit_micro; with by=model: token_id,token_name,period,period_start,kind,model,entries,amount_micro,amount_units; with by=account: account_id,account_name,period,period_start,entries,amount_micro,amount_units,list_amount_micro,credit_micro') },
        },
      }),
    },
    '/admin/prices': {
      get: admin('Every model with its live price (micro-units), by model id, a page at a time (unknown parameters are refused)', { parameters: [limitParam, cursorParam] }, listPage(priceView, { object: { const: 'list' }, unit: str() }, ['object'])),
    },
    '/admin/prices/{model}': {
      get: admin('One model\'s live price', { parameters: [modelParam] }, priceView),
      put: admin('Override a model\'s price (applied at once, audited)', {
        parameters: [modelParam],
        requestBody: jsonBody({ description: 'the price object, or {"price": {...}}; the unit must stay the model\'s', oneOf: [price, obj({ price }, ['price'])] }),
      }, priceView),
      delete: admin('Drop the stored override (back to the file/built-in price)', { parameters: [modelParam] }, priceView),
    },
    '/admin/prices/{model}/history': {
      get: admin('A model\'s price changes, newest first: every set and reset with its time, actor and the effective price before and after; paged like the admin lists', {
        parameters: [modelParam, limitParam, cursorParam],
      }, obj({ object: { const: 'list' }, model: str('the base model'), unit: str(), data: arr(priceChange), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }, ['object', 'model', 'data', 'has_more'])),
    },

    '/console/api/session': consoleSession(),
    ...consoleFiles(),
    '/healthz': { get: { tags: ['operations'], summary: 'Liveness: 200 while the process serves HTTP (nothing else is checked; while it drains new connections are refused, and a request on an open one gets 503)', security: [], responses: { '200': ok(obj({ status: { const: 'ok' } })), '503': { $ref: '#/components/responses/FamilyBError' } } } },
    '/readyz': {
      get: {
        tags: ['operations'],
        summary: 'Readiness: 200 when the database answers, holds every migration, and Redis answers when configured; 503 service_unavailable naming what is missing',
        security: [],
        responses: {
          '200': ok(obj({ status: { const: 'ready' }, checks: obj({ database: { const: 'ok' }, migrations: { const: 'ok' }, redis: { enum: ['ok', 'not_configured'] } }, ['database', 'migrations', 'redis']) }, ['status', 'checks'])),
          '503': { $ref: '#/components/responses/FamilyBError' },
        },
      },
    },
    '/metrics': {
      get: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format): requests, upstream attempts, breakers, write queues, tasks, holds (docs/operations.md)',
        security: [{ metricsBearer: [] }, { adminBearer: [] }],
        responses: { '200': ok(str(), 'Prometheus text format 0.0.4', 'text/plain'), '401': { $ref: '#/components/responses/FamilyBError' }, '403': { $ref: '#/components/responses/FamilyBError' } },
      },
    },
    '/openapi.json': { get: { tags: ['operations'], summary: 'This document', security: [], responses: { '200': ok(obj()) } } },
  };
}

/** The operator console's page and bundle (TOLLWAY_CONSOLE; served under a strict Content-Security-Policy). */
function consoleFiles(): Record<string, Record<string, Operation>> {
  const file = (summary: string, type: string): Record<string, Operation> => ({
    get: { tags: ['console'], summary, security: [], responses: { '200': { description: summary, content: { [type]: { schema: str() } } } } },
  });
  return {
    '/console': file('The operator console (one page; its routes are in the URL fragment)', 'text/html'),
    '/console/app.js': file("The console's script bundle", 'text/javascript'),
    '/console/app.css': file("The console's style sheet", 'text/css'),
  };
}

/** The operator console's sign-in (docs/operations.md#operator-console); its page and bundle are not API. */
function consoleSession(): Record<string, Operation> {
  const session = obj({ session_id: str(), csrf: str('send as X-CSRF-Token with every change'), expires_at: int('ms') });
  const op = (summary: string, extra: Omit<Operation, 'summary'>): Operation => ({ tags: ['console'], summary, security: [], ...extra });
  return {
    post: op('Sign in with the admin key: sets the HttpOnly session cookie; 403 wrong key, 429 after 5 wrong keys a minute', {
      requestBody: jsonBody(obj({ key: str('the admin key') }, ['key'])),
      responses: { '201': ok(session), '403': { $ref: '#/components/responses/FamilyBError' }, '429': { $ref: '#/components/responses/FamilyBError' } },
    }),
    get: op('The signed-in session (by its cookie), or 401', { responses: { '200': ok(session), '401': { $ref: '#/components/responses/FamilyBError' } } }),
    delete: op('Sign out (needs X-CSRF-Token): the session is revoked on every instance', { responses: { '204': { description: 'Signed out' } } }),
  };
}
