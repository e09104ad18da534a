// OpenAPI schemas of upstream capacity in the admin API: an account x upstream model's limits, use and queue.
import { arr, int, obj, type Schema, str } from './schema.ts';

const n = (description: string): Schema => ({ type: ['integer', 'null'], description });
const limits = (what: string): Schema =>
  obj({
    rpm: n(`requests per minute ${what}; null: none`),
    tpm: n(`tokens per minute ${what}; null: none`),
    concurrency: n(`calls at once ${what}; null: none`),
  });
const source = { type: 'string', enum: ['set', 'learnt', 'none'] } as const satisfies Schema;

export const capacityView = obj(
  {
    model: str('the upstream model (every public name sending it on this account shares its limits)'),
    limits: limits('in force'),
    source: obj({ rpm: source, tpm: source, concurrency: source }),
    stated: limits('stated on the channels naming the account (the smallest of them)'),
    read: obj({ rpm: n("from the upstream's quota list"), tpm: n("from the upstream's quota list") }),
    learnt: obj({ rpm: n("learnt from the upstream's refusals"), tpm: n("learnt from the upstream's refusals") }),
    used: obj({
      requests: int('admitted on this instance in the last 60 s'),
      tokens: int('their tokens (estimates corrected by the usage reported)'),
    }),
    in_flight: int('calls holding a slot on this instance'),
    waiting: int('calls queued on this instance'),
    waiting_by_customer: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'queued calls per customer account (acc_…) or token (token:…)',
    },
    paused_until: n('ms since the epoch until which calls wait after an upstream refusal; null: not paused'),
  },
  [
    'model',
    'limits',
    'source',
    'stated',
    'read',
    'learnt',
    'used',
    'in_flight',
    'waiting',
    'waiting_by_customer',
    'paused_until',
  ],
);

export const channelCapacity = obj(
  {
    channel_id: str(),
    account: str(
      "the upstream account as the gateway keys it: '<kind>:<account name>' or '<kind>:key-<hash of the key>'",
    ),
    active: { type: 'boolean', description: 'whether any account x model has a limit (stated, read or learnt)' },
    data: arr(capacityView, 'per upstream model with a limit'),
  },
  ['channel_id', 'account', 'active', 'data'],
);
