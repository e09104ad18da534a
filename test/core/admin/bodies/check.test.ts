// The body checker's refusals name the field in the readers' words: missing, wrong type, out of range, unknown
// field, a field inside a list's item, and a body that is not an object.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/errors/gateway-error.ts';
import { createAccountBody } from '../../../../src/core/admin/bodies/accounts.ts';
import { createTokenBody } from '../../../../src/core/admin/bodies/tokens.ts';
import { createWebhookBody } from '../../../../src/core/admin/bodies/webhooks.ts';
import { channelPatchBody, createChannelBody } from '../../../../src/core/admin/bodies/channels.ts';
import { CHANNEL_KINDS } from '../../../../src/adapters/upstreams.ts';

const kind = CHANNEL_KINDS[0];

function refusal(f: () => unknown): { code: string; message: string; param: string | undefined } {
  try {
    f();
  } catch (e) {
    if (e instanceof GatewayError) return { code: e.code, message: e.message, param: e.param };
    throw e;
  }
  throw new Error('not refused');
}

describe('body checker refusals', () => {
  it.each([
    [() => createTokenBody({}), 'missing_parameter', 'name', /^name is required$/],
    [() => createTokenBody({ name: 5 }), 'invalid_parameter', 'name', /^name must be a string of at most 200/],
    [
      () => createTokenBody({ name: 'x', quota: 1.5 }),
      'invalid_parameter',
      'quota',
      /^quota must be an integer between 0 and \d+ or null$/,
    ],
    [
      () => createTokenBody({ name: 'x', quota_micro: 1 }),
      'invalid_parameter',
      'quota_micro',
      /^Unknown field: quota_micro \(allowed: name, /,
    ],
    [
      () => createTokenBody({ name: 'x', models: ['a', 5] }),
      'invalid_parameter',
      'models',
      /^models must be an array of strings/,
    ],
    [
      () => createAccountBody({ name: 'x', budgets: [{ period: 'year', limit: 1 }] }),
      'invalid_parameter',
      'budgets',
      /^budgets period must be one of day, week, month$/,
    ],
    [
      () => createWebhookBody({ url: 'https://x.test', events: ['nope'] }),
      'invalid_parameter',
      'events',
      /^events must be a non-empty array of: /,
    ],
    [() => createWebhookBody([]), 'invalid_request', undefined, /JSON object/],
    // Inside a channel's cost, the field in it is named, as its reader always has.
    [
      () => createChannelBody({ name: 'x', kind, cost: { per_hour: 1 } }),
      'invalid_parameter',
      'cost.per_hour',
      /^cost\.per_hour is not a known field$/,
    ],
    [
      () => channelPatchBody({ cost: { per_unit: 1.5 } }),
      'invalid_parameter',
      'cost.per_unit',
      /^cost\.per_unit must be an integer between 0 and \d+$/,
    ],
    [
      () => channelPatchBody({ cost: { price_ratio: 0 } }),
      'invalid_parameter',
      'cost.price_ratio',
      /^cost\.price_ratio must be a number above 0 \(at most 1000\)$/,
    ],
    [() => channelPatchBody({ priority: null }), 'invalid_parameter', 'priority', /^priority must be an integer/],
  ])('%#', (f, code, param, message) => {
    const r = refusal(f);
    expect(r.code).toBe(code);
    expect(r.param).toBe(param);
    expect(r.message).toMatch(message);
  });

  it('a body the schema takes is returned as it came', () => {
    const body = { name: 'ok', quota: null, budgets: [{ period: 'day', limit: 5 }] };
    expect(createTokenBody(body)).toBe(body);
  });
});
