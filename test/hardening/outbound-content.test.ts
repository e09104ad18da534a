// Outbound safety of the /v1/videos content proxy: the gateway fetches a finished video's
// result URL only under the result-host policy (allow-listed host, https unless the origin is trusted, no
// private addresses unless allowed). A result on a host outside that policy is refused without being fetched.
import { describe, expect, it } from 'vitest';
import { SIM_VIDEO_BYTES } from '../../simulator/dashscope/results-video.ts';
import { useHarness } from '../support/harness.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';
import type { BErr } from '../support/error-shapes.ts';

const t = useHarness({ env: FAST_TASK_ENV });

const RESULT_PATH = '/dashscope-result/video/';

describe('content proxy outbound policy', () => {
  it('a result URL outside the result-host policy is refused, never fetched; the same URL is served once allowed', async () => {
    const c = await createVideo(t.h, t.token, { model: 'wnx2.7-t2v', prompt: 'outbound', seconds: 2 });
    expect(c.status).toBe(200);
    expect((await waitTerminal(t.h, t.token, c.json.id as string)).status).toBe('completed');

    const savedOrigins = [...t.h.config.trustedResultOrigins];
    const savedPrivate = t.h.config.allowPrivateNetwork;
    // Neither trusted nor on the allow-list (127.0.0.1 is not a result host), and private addresses allowed
    // so that only the host allow-list can refuse it.
    t.h.config.trustedResultOrigins.length = 0;
    t.h.config.allowPrivateNetwork = true;
    const fetchedBefore = t.h.sim.requestsTo(RESULT_PATH).length;
    try {
      const r = await t.h.fetch(`/v1/videos/${c.json.id as string}/content`, { token: t.token });
      expect(r.status).toBe(502);
      const e = ((await r.json()) as BErr).error;
      expect(e.code).toBe('download_refused');
      expect(e.request_id).toBe(r.headers.get('x-gateway-request-id'));
      // The internal result address is not disclosed.
      expect(e.message).not.toMatch(/127\.0\.0\.1|dashscope-result/);
      expect(t.h.sim.requestsTo(RESULT_PATH).length).toBe(fetchedBefore);

      // Private networks not allowed: plain http to a loopback result host is refused too.
      t.h.config.allowPrivateNetwork = false;
      const r2 = await t.h.fetch(`/v1/videos/${c.json.id as string}/content`, { token: t.token });
      expect(((await r2.json()) as BErr).error.code).toBe('download_refused');
      expect(t.h.sim.requestsTo(RESULT_PATH).length).toBe(fetchedBefore);
    } finally {
      t.h.config.trustedResultOrigins.push(...savedOrigins);
      t.h.config.allowPrivateNetwork = savedPrivate;
    }

    const ok = await t.h.fetch(`/v1/videos/${c.json.id as string}/content`, { token: t.token });
    expect(ok.status).toBe(200);
    expect(Buffer.from(await ok.arrayBuffer()).equals(SIM_VIDEO_BYTES)).toBe(true);
  });
});
