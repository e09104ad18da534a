// What the console's operator forms send and say, without a browser: the channel form's body (everything on creation,
// only the changes and the keys typed on an edit), a price group's multiplier as typed, and the reconciliation
// verdict's lines.
import { describe, expect, it } from 'vitest';
import { bodyOf, textOf, type EditedChannel } from '../../console/src/pages/channels/channel-body.ts';
import { multiplierOf } from '../../console/src/pages/price-groups/multiplier.ts';
import { problems } from '../../console/src/pages/reconcile/verdict.ts';
import type { ReconcileReport } from '../../src/core/reconcile.ts';

const CHANNEL: EditedChannel = {
  id: 'ch_1',
  name: 'kling-a',
  kind: 'kling',
  base_url: 'https://api-beijing.klingai.com',
  models: ['vidx-v3'],
  priority: 0,
  weight: 1,
  account: null,
};

describe('channel form body', () => {
  it('a new channel: its kind, every field typed and its keys; an empty base URL and account are left out', () => {
    const text = { ...textOf(null), name: ' new ', models: 'a, b  c', priority: '2', weight: '4' };
    expect(bodyOf(text, { access_key: 'AK', secret_key: 'SK' }, null, 'kling')).toEqual({
      kind: 'kling',
      name: 'new',
      models: ['a', 'b', 'c'],
      priority: 2,
      weight: 4,
      access_key: 'AK',
      secret_key: 'SK',
    });
  });

  it('an edit sends only what changed, and a key only when one is typed', () => {
    const text = textOf(CHANNEL);
    expect(bodyOf(text, { access_key: '', secret_key: '' }, CHANNEL, 'kling')).toEqual({});
    expect(bodyOf({ ...text, weight: '3' }, { secret_key: 'SK2' }, CHANNEL, 'kling')).toEqual({
      weight: 3,
      secret_key: 'SK2',
    });
    // Emptied: models back to every model of its kind; an account named, then cleared.
    expect(bodyOf({ ...text, models: ' ', account: 'acct-1' }, {}, CHANNEL, 'kling')).toEqual({
      models: null,
      account: 'acct-1',
    });
    expect(bodyOf(textOf({ ...CHANNEL, account: 'x' }), {}, { ...CHANNEL, account: 'x' }, 'kling')).toEqual({});
    expect(
      bodyOf({ ...textOf({ ...CHANNEL, account: 'x' }), account: '' }, {}, { ...CHANNEL, account: 'x' }, 'kling'),
    ).toEqual({
      account: null,
    });
  });
});

it('reads a multiplier from 0 to 1000 with at most 6 decimals', () => {
  expect(multiplierOf(' 0.75 ')).toBe(0.75);
  expect(multiplierOf('1000')).toBe(1000);
  expect(multiplierOf('0.000001')).toBe(0.000001);
  for (const bad of ['', '-1', '1001', '0.0000001', '1e3', 'abc']) expect(multiplierOf(bad), bad).toBeNull();
});

describe('reconciliation verdict', () => {
  const clean: ReconcileReport = {
    since: 0,
    until: 1,
    from: 0,
    to: 1,
    groups: [],
    difference: 0,
    mismatches: [],
    open_holds: [],
    tasks_charged_without_success: [],
    successes_without_charge: [],
    lost_submits: [],
    upstream_disagreements: [],
  };

  it('a clean report has nothing to say', () => {
    expect(problems(clean)).toEqual([]);
  });

  it('names the difference and each kind found with its count', () => {
    const r: ReconcileReport = {
      ...clean,
      difference: '9007199254740993',
      open_holds: [{ key: 'k', token_id: 't', amount: 1, age_ms: 1, reason: 'r' }],
      successes_without_charge: [
        { task_id: 'a', model: 'm' },
        { task_id: 'b', model: 'm' },
      ],
    };
    expect(problems(r)).toEqual([
      'The ledger and the stored upstream usage differ by 9,007,199,254.740993 units',
      'Open holds: 1',
      'Successes without charge: 2',
    ]);
    expect(problems({ ...clean, difference: -5 })).toEqual([
      'The ledger and the stored upstream usage differ by -0.000005 units',
    ]);
  });
});
