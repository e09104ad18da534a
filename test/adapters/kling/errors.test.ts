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

  it('auth failures do not echo the vendor text; others keep it', () => {
    expect(klingError(401, { code: 1002, message: 'key AK123 invalid' }).message).not.toContain('AK123');
    expect(klingError(400, { code: 1201, message: 'duration invalid' }).message).toContain('duration invalid');
  });
});

describe('kling task data → poll outcome', () => {
  it('succeed: videos kept, usage = sum of reported seconds at the task tier', () => {
    const o = parseTaskData({ task_status: 'succeed', task_result: { videos: [{ id: '9', url: 'https://cdn/x.mp4', duration: '5.1' }, { id: '10', url: 'https://cdn/y.mp4', duration: '4.9' }] } }, 'pro', 'r1');
    expect(o.state).toBe('succeeded');
    expect(o.usage).toEqual({ kind: 'video-mode', outputSeconds: 10, tier: 'pro' });
    expect((o.result as { videos: Array<{ upstreamId: string }> }).videos.map((v) => v.upstreamId)).toEqual(['9', '10']);
  });
  it('succeed without any video is a failure (nothing to charge), as DashScope\'s success without a URL', () => {
    for (const task_result of [{ videos: [] }, { videos: [{ id: '9' }] }, {}]) {
      const o = parseTaskData({ task_status: 'succeed', task_result }, 'std', 'r2');
      expect(o).toMatchObject({ state: 'failed', upstreamStatus: 'succeed', error: { code: 'upstream_no_output', upstreamRequestId: 'r2' } });
      expect(o.usage).toBeUndefined();
    }
  });

  it('succeed without a duration leaves usage to the hold estimate', () => {
    expect(parseTaskData({ task_status: 'succeed', task_result: { videos: [{ id: '9', url: 'u' }] } }, 'std', null).usage).toBeUndefined();
  });
  it('states and failure reasons', () => {
    expect(parseTaskData({ task_status: 'submitted' }, 'std', null).state).toBe('queued');
    expect(parseTaskData({ task_status: 'processing' }, 'std', null).state).toBe('in_progress');
    const f = parseTaskData({ task_status: 'failed', task_status_msg: 'content risk' }, 'std', null);
    expect([f.state, f.error?.message]).toEqual(['failed', 'content risk']);
    expect(() => parseTaskData({ task_status: 'weird' }, 'std', null)).toThrow();
  });
});
