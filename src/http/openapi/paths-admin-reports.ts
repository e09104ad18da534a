// OpenAPI paths of the admin API's reports: the overview's stats, health, reconciliation.
import { str, int, num, arr, obj, query, admin, deprecated, type Operation } from './schema.ts';
import { micro, microSum } from './admin-schemas.ts';

export function adminReportPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/stats': {
      get: admin(
        'Overview figures: requests and errors (status >= 400) from the request log, and spend from the ledger (every charge written in the window, whatever its kind: chats, images, video tasks when they settle; credits excluded), per time bucket, and the top 5 models and tokens (and accounts with group_by=account); unknown parameters are refused',
        {
          parameters: [
            query(
              'window',
              { type: 'string', enum: ['1h', '24h', '30d'], default: '24h' },
              'Last hour (1-minute buckets), day (15 minutes) or 30 days (6 hours)',
            ),
            query(
              'group_by',
              { type: 'string', enum: ['token', 'account'], default: 'token' },
              "account: top_accounts too (each token's figures count for the account it belongs to now)",
            ),
          ],
        },
        obj({
          window: str(),
          since: int('ms, inclusive'),
          until: int('ms, exclusive'),
          bucket_ms: int(),
          series: obj({
            t: arr(int(), 'bucket start, ms'),
            requests: arr(int()),
            errors: arr(int()),
            spend: arr(microSum()),
          }),
          totals: obj({ requests: int(), errors: int(), spend: microSum("the ledger's charges in the window") }),
          spend_by_kind: {
            type: 'object',
            additionalProperties: microSum(),
            description: "the ledger's charges in the window per ledger kind (tokens, images, video …)",
          },
          top_models: arr(
            obj({ model: { type: ['string', 'null'] }, requests: int(), errors: int(), spend: microSum() }),
          ),
          top_tokens: arr(
            obj({
              token_id: { type: ['string', 'null'] },
              name: { type: ['string', 'null'] },
              requests: int(),
              errors: int(),
              spend: microSum(),
            }),
          ),
          top_accounts: arr(
            obj({
              account_id: { type: ['string', 'null'], description: 'null: tokens of no account' },
              name: { type: ['string', 'null'] },
              requests: int(),
              errors: int(),
              spend: microSum(),
            }),
            'present with group_by=account',
          ),
        }),
      ),
    },
    '/admin/health': {
      get: admin(
        "Upstream health: each channel's breaker (this instance's view) and its traffic in the last 5 minutes from the request log (requests, 5xx errors, mean latency), and the open async tasks by state",
        {},
        obj({
          recent_ms: int(),
          channels: arr(
            obj({
              id: str(),
              name: str(),
              kind: str(),
              enabled: { type: 'boolean' },
              breaker: obj({ state: str('closed, open or half-open') }),
              recent: obj({
                requests: int(),
                errors: int(),
                error_rate: { type: 'number' },
                mean_latency_ms: { type: ['integer', 'null'] },
              }),
            }),
          ),
          open_tasks: obj({ waiting: int(), submitting: int(), queued: int(), in_progress: int() }),
        }),
      ),
    },
    '/admin/reconcile': {
      get: admin(
        'The ledger against the stored upstream usage for a period, by day, model and channel, with every discrepancy listed (clean when every list is empty and the difference is 0); queued charges are flushed first',
        {
          parameters: [
            query(
              'since',
              str(),
              'Inclusive start: milliseconds since the epoch or an ISO 8601 date/date-time (default: one day before `until`)',
            ),
            query('until', str(), 'Exclusive end, the same forms (default: now)'),
            {
              ...query('from', str(), 'deprecated: `since` (kept for one release; not with `since`)'),
              deprecated: true,
            },
            { ...query('to', str(), 'deprecated: `until` (kept for one release; not with `until`)'), deprecated: true },
          ],
        },
        obj({
          since: int('ms'),
          until: int('ms'),
          from: deprecated(int(), 'since'),
          to: deprecated(int(), 'until'),
          groups: arr(
            obj({
              day: str('YYYY-MM-DD (UTC)'),
              model: str(),
              channel: str('the upstream account for tasks; "-" for calls answered at once'),
              ledger_amount: microSum(),
              reported_amount: microSum(),
              difference: microSum('ledger − reported, micro-units'),
              entries: int('ledger lines in the group'),
              charges: deprecated(int(), 'entries'),
            }),
          ),
          difference: microSum("the sum of the groups' differences; 0 when the ledger and the stored usage agree"),
          mismatches: arr(
            obj({
              key: str(),
              model: str(),
              ledger_amount: micro(),
              reported_amount: { type: ['integer', 'null'] },
              reason: str(),
            }),
          ),
          open_holds: arr(obj({ key: str(), token_id: str(), amount: micro(), age_ms: int(), reason: str() })),
          tasks_charged_without_success: arr(obj({ task_id: str(), state: str(), amount: micro() })),
          successes_without_charge: arr(obj({ task_id: str(), model: str() })),
          lost_submits: arr(
            obj({
              task_id: str(),
              token_id: str(),
              kind: str(),
              model: str(),
              channel: str(),
              created_at: int(),
              reason: str(),
            }),
          ),
          upstream_disagreements: arr(
            obj({
              task_id: str(),
              model: str(),
              channel: str(),
              amount: micro(),
              list_amount: micro(),
              upstream_units: num("the upstream's own deduction (Kling final_unit_deduction)"),
              upstream_cost: micro('that deduction at the channel cost per_unit'),
              ratio: num('list_amount / upstream_cost'),
              price_ratio: num("the channel's cost.price_ratio (default 1)"),
              reason: str(),
            }),
            "task charges whose ratio to the upstream's deduction strays from the channel's price_ratio by more than its tolerance",
          ),
        }),
      ),
    },
  };
}
