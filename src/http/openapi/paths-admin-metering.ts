// OpenAPI paths of the admin API's metering reads: the ledger, the request log, bills and prices.
import { str, int, arr, obj, jsonBody, ok, query, admin, type Operation } from './schema.ts';
import { priceBody } from '../../core/admin/bodies/prices.ts';
import {
  listPage,
  microSum,
  timeParam,
  limitParam,
  priceView,
  priceChange,
  ledgerEntry,
  requestLogEntry,
  billLine,
  billModelLine,
  billAccountLine,
  modelParam,
  cursorParam,
  formatParam,
  listAnswer,
  LEDGER_CSV,
  REQUEST_LOG_CSV,
} from './admin-schemas.ts';

export function adminMeteringPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/ledger': {
      get: admin(
        'Ledger entries (the billing authority), newest first; queued charges are flushed first',
        {
          parameters: [
            query('token_id', str(), 'Only this token'),
            query('model', str(), 'Only this billing model'),
            query('request_id', str(), 'Only this request'),
            query('task_id', str(), 'Only this task (the public id the client was given)'),
            timeParam('since'),
            timeParam('until'),
            limitParam,
            cursorParam,
            query(
              'before_id',
              { type: 'integer', minimum: 1 },
              'Page on: entries with a smaller id (next_before_id of the previous page; the same position as cursor)',
            ),
            formatParam('the page'),
          ],
        },
        obj(),
        '200',
        listAnswer(ledgerEntry, LEDGER_CSV, { next_before_id: int('present when has_more') }),
      ),
    },
    '/admin/logs': {
      get: admin(
        'Request log (one row per request: channel, upstream attempts, time to first byte), newest first; unknown parameters are refused',
        {
          parameters: [
            query('request_id', str(), 'Only this request'),
            query('token_id', str(), 'Only this token'),
            query('model', str(), 'Only this public model'),
            query(
              'status',
              { type: 'string', pattern: '^[1-5](\\d\\d|xx)$' },
              'Only this HTTP status (429) or class (5xx)',
            ),
            timeParam('since'),
            timeParam('until'),
            limitParam,
            cursorParam,
            formatParam('the page'),
          ],
        },
        obj(),
        '200',
        listAnswer(requestLogEntry, REQUEST_LOG_CSV),
      ),
    },
    '/admin/bills': {
      get: admin(
        "Bills: ledger totals per token per day, week (from Monday) or month, each with its models and top-ups; by=model: a line per model; by=account: a line per account. The periods follow the account's time zone (account_id, or token_id's account), as its budgets do; else UTC",
        {
          parameters: [
            query('token_id', str(), 'Only this token'),
            query(
              'account_id',
              str(),
              "Only the ledger lines that counted against this account (its tokens' charges and its own top-ups)",
            ),
            query('model', str(), 'Only this billing model'),
            query(
              'period',
              { type: 'string', enum: ['day', 'week', 'month'], default: 'month' },
              "a day, an ISO week (from Monday) or a month, in the bill's time zone",
            ),
            timeParam('since'),
            timeParam('until'),
            query(
              'format',
              { type: 'string', enum: ['json', 'csv'], default: 'json' },
              'csv: RFC 4180 with a header row',
            ),
            query(
              'by',
              { type: 'string', enum: ['token', 'model', 'account'], default: 'token' },
              'model: a line per token, period and model, and one (kind credit) for the top-ups; account: a line per account and period (account_id null: lines of no account)',
            ),
          ],
        },
        obj(),
        '200',
        {
          ...ok(obj()),
          content: {
            'application/json': {
              schema: obj(
                {
                  object: { const: 'bill' },
                  period: { type: 'string', enum: ['day', 'week', 'month'] },
                  time_zone: {
                    type: ['string', 'null'],
                    description: "the zone of the periods' day boundaries: the account's (IANA name); null: UTC",
                  },
                  by: {
                    type: 'string',
                    enum: ['model', 'account'],
                    description: 'present with by=model or by=account',
                  },
                  unit: str(),
                  data: {
                    type: 'array',
                    items: { anyOf: [billLine, billModelLine, billAccountLine] },
                    description: 'bill lines; with by=model, model lines; with by=account, account lines',
                  },
                  total: obj({
                    entries: int(),
                    amount: microSum(),
                    amount_units: str(),
                    credit: microSum('top-ups credited'),
                  }),
                },
                ['object', 'period', 'data', 'total'],
              ),
            },
            'text/csv': {
              schema: str(
                'header: token_id,token_name,period,period_start,entries,amount_micro,amount_units,credit_micro; with by=model: token_id,token_name,period,period_start,kind,model,entries,amount_micro,amount_units; with by=account: account_id,account_name,period,period_start,entries,amount_micro,amount_units,list_amount_micro,credit_micro',
              ),
            },
          },
        },
      ),
    },
    '/admin/prices': {
      get: admin(
        'Every model with its live price (micro-units), by model id, a page at a time (unknown parameters are refused)',
        { parameters: [limitParam, cursorParam] },
        listPage(priceView, { object: { const: 'list' }, unit: str() }, ['object']),
      ),
    },
    '/admin/prices/{model}': {
      get: admin("One model's live price", { parameters: [modelParam] }, priceView),
      put: admin(
        "Override a model's price (applied at once, audited)",
        {
          parameters: [modelParam],
          requestBody: jsonBody(priceBody.schema),
        },
        priceView,
      ),
      delete: admin(
        'Drop the stored override (back to the file/built-in price)',
        { parameters: [modelParam] },
        priceView,
      ),
    },
    '/admin/prices/{model}/history': {
      get: admin(
        "A model's price changes, newest first: every set and reset with its time, actor and the effective price before and after; paged like the admin lists",
        {
          parameters: [modelParam, limitParam, cursorParam],
        },
        obj(
          {
            object: { const: 'list' },
            model: str('the base model'),
            unit: str(),
            data: arr(priceChange),
            has_more: { type: 'boolean' },
            next_cursor: str('present when has_more'),
          },
          ['object', 'model', 'data', 'has_more'],
        ),
      ),
    },
  };
}
