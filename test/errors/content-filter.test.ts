// Content-filter refusals map to upstream_content_filtered whatever the upstream's spelling: the one rule
// (src/errors/content-filter.ts) on each spelling, then each upstream API through the gateway with the simulator's
// content-filter fault (DashScope compatible mode, the messages-compatible path, DashScope native image and video
// synthesis, Kling 1300/1301) — in each family's error shape.
import { describe, expect, it } from 'vitest';
import { dashscopeError } from '../../src/adapters/dashscope/errors.ts';
import { parseVideoTask } from '../../src/adapters/dashscope/video.ts';
import { klingError } from '../../src/adapters/kling/errors.ts';
import { isContentFilterCode, mentionsContentFilter } from '../../src/errors/content-filter.ts';
import { expectA, expectB } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';
import { vidxHarness } from '../support/vidx.ts';

describe('the rule', () => {
  it.each([
    'DataInspectionFailed',
    'DataInspectionFailed.Output',
    'InternalError.Algo.DataInspectionFailed',
    'data_inspection_failed',
    'IPInfringementSuspect',
    'content_filter',
    'content_policy_violation',
    1300,
    1301,
    '1301',
  ])('%s is a content filter', (code) => {
    expect(isContentFilterCode(code)).toBe(true);
  });

  it.each([
    'InvalidParameter',
    'invalid_request_error',
    'Throttling.RateQuota',
    'data_inspection',
    1201,
    1302,
    '',
    undefined,
    null,
  ])('%s is not', (code) => {
    expect(isContentFilterCode(code)).toBe(false);
  });

  it('a generic code whose message carries the DashScope code counts; ordinary text does not', () => {
    expect(
      mentionsContentFilter(
        '<400> InternalError.Algo.DataInspectionFailed: Input data may contain inappropriate content.',
      ),
    ).toBe(true);
    expect(mentionsContentFilter('the content filter field is unknown')).toBe(false);
  });

  it('every DashScope body shape and Kling envelope maps through it', () => {
    const bodies: unknown[] = [
      { code: 'DataInspectionFailed', message: 'x', request_id: 'u' },
      { error: { code: 'data_inspection_failed', type: 'data_inspection_failed', message: 'x' } },
      { error: { code: null, type: 'data_inspection_failed', message: 'x' } },
      {
        type: 'error',
        error: { type: 'invalid_request_error', message: '<400> InternalError.Algo.DataInspectionFailed: x' },
      },
    ];
    for (const b of bodies) expect(dashscopeError(400, b).code).toBe('upstream_content_filtered');
    for (const code of [1300, 1301])
      expect(klingError(400, { code, message: 'x', request_id: 'u' }).code).toBe('upstream_content_filtered');
    expect(
      dashscopeError(400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
      }).code,
    ).toBe('upstream_invalid_request');
  });

  it('a DashScope video task the inspection stopped fails as upstream_content_filtered; other failures as upstream_task_failed, the upstream code kept for operators', () => {
    const failed = (code: string, message = 'Output data may contain inappropriate content.') =>
      parseVideoTask({ output: { task_status: 'FAILED', code, message }, request_id: 'u' });
    expect(failed('DataInspectionFailed')).toMatchObject({
      state: 'failed',
      code: 'upstream_content_filtered',
      message: 'Upstream content policy rejected the request',
    });
    expect(failed('InternalError', 'wan2.7-t2v crashed')).toMatchObject({
      state: 'failed',
      code: 'upstream_task_failed',
      message: 'The upstream task failed',
      upstreamMessage: 'InternalError: wan2.7-t2v crashed',
    });
  });
});

describe('through the gateway, per upstream API (simulator fault content-filter)', () => {
  const t = useHarness(vidxHarness());
  const post = (path: string, json: unknown) => t.h.fetch(path, { method: 'POST', token: t.token, json });
  const MARK = 'please sim-fault:content-filter';

  it.each([
    [
      'chat (compatible mode)',
      '/v1/chat/completions',
      { model: 'qwx3.7-plus', messages: [{ role: 'user', content: MARK }] },
    ],
    [
      'chat stream (compatible mode)',
      '/v1/chat/completions',
      { model: 'qwx3.7-plus', stream: true, messages: [{ role: 'user', content: MARK }] },
    ],
    ['responses (compatible mode)', '/v1/responses', { model: 'qwx3.7-plus', input: MARK }],
    ['embeddings (compatible mode)', '/v1/embeddings', { model: 'text-embedding-v4', input: MARK }],
    [
      'messages (messages-compatible path)',
      '/v1/messages',
      { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: MARK }] },
    ],
    [
      'messages stream (messages-compatible path)',
      '/v1/messages',
      { model: 'qwx3.7-plus', max_tokens: 16, stream: true, messages: [{ role: 'user', content: MARK }] },
    ],
    ['image generation (DashScope native)', '/v1/images/generations', { model: 'qwx-image-2.0', prompt: MARK }],
    ['video creation (DashScope video synthesis)', '/v1/videos', { model: 'hhx-1.1-t2v', prompt: MARK, seconds: 3 }],
  ])('%s → 400 upstream_content_filtered', async (_name, path, json) => {
    const body = await expectB(await post(path, json), 400, 'upstream_content_filtered');
    expect(body.error.message).toMatch(/content policy/i);
  });

  it.each([1300, 1301])('family A text2video (Kling code %i) → the vendor code 1301 envelope', async (code) => {
    const body = await expectA(
      await post('/vidx/v1/videos/text2video', { prompt: `a cat sim-fault:content-filter:${code}` }),
      400,
      1301,
    );
    expect(body.message).toMatch(/content policy/i);
  });
});
