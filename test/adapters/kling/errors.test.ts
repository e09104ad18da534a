import { describe, expect, it } from 'vitest';
import { klingError } from '../../../src/adapters/kling/errors.ts';
import { parseTaskData } from '../../../src/adapters/kling/tasks.ts';

describe('kling envelope errors → catalogue codes', () => {
  it.each([
    [401, 1000, 'upstream_auth_error', 502, 5001],
    [401, 1004, 'upstream_auth_error', 502, 5001],
    [429, 1101, 'upstream_permission_denied', 403, 1103],
    [403, 1103, 'upstream_permission_denied', 403, 1103],
    [400, 1201, 'upstream_invalid_request', 400, 1201],
    [404, 1203, 'not_found', 404, 1203],
    [400, 1301, 'upstream_content_filtered', 400, 1301],
    [429, 1302, 'upstream_rate_limited', 429, 1302],
    [429, 1303, 'concurrency_limited', 429, 1303],
    [500, 5000, 'upstream_error', 502, 5001],
    [504, 5002, 'upstream_timeout', 504, 5002],
  ] as const)('HTTP %i code %i → %s', (status, code, want, httpStatus, vendor) => {
    const e = klingError(status, { code, message: 'parallel task over resource pack limit', request_id: 'up-1' });
    expect([e.code, e.status, e.vendorCode]).toEqual([want, httpStatus, vendor]);
    expect(e.upstreamRequestId).toBe('up-1');
  });

  it("its rate limit (1302, or a 429 without a code) is the request rate, with the answer's Retry-After; other 429s are no rate limit", () => {
    expect(klingError(429, { code: 1302, message: 'rate limit' }, 1500)).toMatchObject({
      code: 'upstream_rate_limited',
      upstreamLimit: 'requests',
      retryAfterMs: 1500,
    });
    expect(klingError(429, { code: 1302, message: 'rate limit' })).toMatchObject({
      upstreamLimit: 'requests',
      retryAfterMs: null,
    });
    expect(klingError(429, null)).toMatchObject({ code: 'upstream_rate_limited', upstreamLimit: 'requests' });
    expect(klingError(429, { code: 1303, message: 'parallel task over resource pack limit' }, 1500)).toMatchObject({
      code: 'concurrency_limited',
      upstreamLimit: null,
      retryAfterMs: null,
    });
    expect(klingError(429, { code: 1101, message: 'arrears' })).toMatchObject({
      accountRefused: true,
      upstreamLimit: null,
    });
  });

  it('never echoes the vendor text: our words, the field named when the message names one; the vendor text kept for operators', () => {
    const auth = klingError(401, { code: 1002, message: 'key AK123 invalid' });
    expect(auth.message).not.toContain('AK123');
    expect(auth.upstreamMessage).toBe('HTTP 401 1002: key AK123 invalid');
    const o1 = klingError(400, {
      code: 1201,
      message: "model_name 'kling-video-o1' is not supported by text2video",
      request_id: 'up-9',
    });
    expect([o1.code, o1.param, o1.message]).toEqual([
      'upstream_invalid_request',
      'model_name',
      'The upstream refused the value of model_name',
    ]);
    expect(o1.message).not.toMatch(/kling/i);
    expect(o1.upstreamMessage).toBe("HTTP 400 1201: model_name 'kling-video-o1' is not supported by text2video");
    // The first field the message names; a name that only contains a field's name does not count.
    expect(klingError(400, { code: 1201, message: 'duration must be "5" when aspect_ratio is set' }).param).toBe(
      'duration',
    );
    expect(
      klingError(400, { code: 1201, message: 'sub_duration invalid at https://api-beijing.klingai.com/x' }),
    ).toMatchObject({
      param: undefined,
      message: 'The upstream refused a parameter of the request',
    });
    // The account's state, in our words.
    expect(klingError(429, { code: 1102, message: 'resource pack of kling-v2-6 exhausted' }).message).toBe(
      'Upstream account unavailable (operator: check the account balance and resource packs)',
    );
  });
});

describe('kling task data → poll outcome', () => {
  it("succeed: videos kept, reported seconds = the sum of the videos' durations", () => {
    const o = parseTaskData(
      {
        task_status: 'succeed',
        task_result: {
          videos: [
            { id: '9', url: 'https://cdn/x.mp4', duration: '5.1' },
            { id: '10', url: 'https://cdn/y.mp4', duration: '4.9' },
          ],
        },
      },
      'r1',
    );
    expect(o.state).toBe('succeeded');
    expect(o.reported).toEqual({ outputSeconds: 10 });
    expect((o.result as { videos: Array<{ upstreamId: string }> }).videos.map((v) => v.upstreamId)).toEqual([
      '9',
      '10',
    ]);
  });
  it("succeed without any video is a failure (nothing to charge), as DashScope's success without a URL", () => {
    for (const task_result of [{ videos: [] }, { videos: [{ id: '9' }] }, {}]) {
      const o = parseTaskData({ task_status: 'succeed', task_result }, 'r2');
      expect(o).toMatchObject({
        state: 'failed',
        upstreamStatus: 'succeed',
        error: { code: 'upstream_no_output', upstreamRequestId: 'r2' },
      });
      expect(o.reported).toBeUndefined();
    }
  });

  it('succeed without a duration reports no seconds (the charge is the hold estimate)', () => {
    expect(
      parseTaskData({ task_status: 'succeed', task_result: { videos: [{ id: '9', url: 'u' }] } }, null).reported,
    ).toBeUndefined();
  });
  it('states and failure reasons', () => {
    expect(parseTaskData({ task_status: 'submitted' }, null).state).toBe('queued');
    expect(parseTaskData({ task_status: 'processing' }, null).state).toBe('in_progress');
    // The upstream's reason is the operators' (it may name its models); the client's message is ours.
    const f = parseTaskData(
      { task_status: 'failed', task_status_msg: 'kling-v2-6 generation failed: content risk' },
      null,
    );
    expect([f.state, f.error?.message, f.error?.upstreamMessage]).toEqual([
      'failed',
      'The upstream task failed',
      'kling-v2-6 generation failed: content risk',
    ]);
    expect(() => parseTaskData({ task_status: 'weird' }, null)).toThrow();
  });
});
