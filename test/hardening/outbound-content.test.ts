// Outbound safety of the /v1/videos content proxy (issue 8, item 5): the gateway fetches a finished video's
// result URL only under the result-host policy (allow-listed host, https unless the origin is trusted, no
// private addresses unless allowed). A result on a host outside that policy is refused without being fetched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_VIDEO_BYTES } from '../../simulator/dashscope/results-video.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness({ env: FAST_TASK_ENV });
  token = (await h.token()).secret;
});
afterAll(async () => h?.close());

const RESULT_PATH = '/dashscope-result/video/';

describe('content proxy outbound policy', () => {
  it('a result URL outside the result-host policy is refused, never fetched; the same URL is served once allowed', async () => {
    const c = await createVideo(h, token, { model: 'wnx2.7-t2v', prompt: 'outbound', seconds: 2 });
    expect(c.status).toBe(200);
    expect((await waitTerminal(h, token, c.json.id as string)).status).toBe('completed');

    const savedOrigins = [...h.config.trustedResultOrigins];
    const savedPrivate = h.config.allowPrivateNetwork;
    // Neither trusted nor on the allow-list (127.0.0.1 is not a result host), and private addresses allowed
    // so that only the host allow-list can refuse it.
    h.config.trustedResultOrigins.length = 0;
    h.config.allowPrivateNetwork = true;
    const fetchedBefore = h.sim.requestsTo(RESULT_PATH).length;
    try {
      const r = await h.fetch(`/v1/videos/${c.json.id as string}/content`, { token });
      expect(r.status).toBe(502);
      const e = ((await r.json()) as { error: { code: string; message: string; request_id: string } }).error;
      expect(e.code).toBe('download_refused');
      expect(e.request_id).toBe(r.headers.get('x-gateway-request-id'));
      // The internal result address is not disclosed.
      expect(e.message).not.toMatch(/127\.0\.0\.1|dashscope-result/);
      expect(h.sim.requestsTo(RESULT_PATH).length).toBe(fetchedBefore);

      // Private networks not allowed: plain http to a loopback result host is refused too.
      h.config.allowPrivateNetwork = false;
      const r2 = await h.fetch(`/v1/videos/${c.json.id as string}/content`, { token });
      expect(((await r2.json()) as { error: { code: string } }).error.code).toBe('download_refused');
      expect(h.sim.requestsTo(RESULT_PATH).length).toBe(fetchedBefore);
    } finally {
      h.config.trustedResultOrigins.push(...savedOrigins);
      h.config.allowPrivateNetwork = savedPrivate;
    }

    const ok = await h.fetch(`/v1/videos/${c.json.id as string}/content`, { token });
    expect(ok.status).toBe(200);
    expect(Buffer.from(await ok.arrayBuffer()).equals(SIM_VIDEO_BYTES)).toBe(true);
  });
});
