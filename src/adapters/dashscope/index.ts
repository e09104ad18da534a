// DashScope (Alibaba Cloud Model Studio, the domestic region): text, images and video synthesis with one API key.
import { isObject } from '../../json/json.ts';
import { apiKeyTarget } from '../../routing/channel-target.ts';
import { readJsonOrStatus } from '../read-json.ts';
import { PROBE_TIMEOUT_MS } from '../probe.ts';
import type { Upstream } from '../upstream.ts';
import { dashscopeDeclared } from './declaration.ts';
import { dashscopeError } from './errors.ts';
import { readDashscopeLimits } from './quotas.ts';
import { DASHSCOPE_VIDEO_TASK_KIND, DashscopeVideoDriver } from './video-driver.ts';

export const dashscope: Upstream<'dashscope'> = {
  ...dashscopeDeclared,
  // The model list of the compatible mode: authenticated, nothing generated or billed.
  async probe({ upstream }, ch) {
    const target = apiKeyTarget(ch);
    const res = await upstream.request({
      method: 'GET',
      baseUrl: target.baseUrl,
      path: '/compatible-mode/v1/models',
      headers: { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      timeouts: { headersMs: PROBE_TIMEOUT_MS },
    });
    const json = await readJsonOrStatus(res, dashscopeError);
    if (res.statusCode >= 400) throw dashscopeError(res.statusCode, json);
    const rid = res.headers['x-request-id'] ?? res.headers['x-dashscope-request-id'];
    return {
      upstreamRequestId:
        typeof rid === 'string' ? rid : isObject(json) && typeof json.request_id === 'string' ? json.request_id : null,
    };
  },
  readLimits: ({ upstream }, ch) => readDashscopeLimits(upstream, ch),
  taskKinds: [DASHSCOPE_VIDEO_TASK_KIND],
  drivers: ({ upstream }, wiring) => [
    [DASHSCOPE_VIDEO_TASK_KIND, new DashscopeVideoDriver(upstream, wiring.upstreamAccountOf)],
  ],
};
