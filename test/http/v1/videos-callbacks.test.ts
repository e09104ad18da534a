// callback_url on POST /v1/videos: the finished video object, POSTed once, signed as family A's callbacks (Standard
// Webhooks with the token's callback secret) and verified here by the `standardwebhooks` package as a client would.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';
import { startReceiver } from '../../support/receiver.ts';
import { createVideo, FAST_TASK_ENV } from '../../support/videos.ts';
import { eventually } from '../../support/wait.ts';

// A task, then its callback: on a loaded machine more than the default 30 s may pass.
describe('POST /v1/videos callback_url', { timeout: 120_000 }, () => {
  // The receiver listens on 127.0.0.1: the operator allows private networks here.
  const t = useHarness({ env: { ...FAST_TASK_ENV, TOLLWAY_ALLOW_PRIVATE_NETWORK: '1' } });

  it("POSTs the completed video object once, signed with the token's callback secret", async () => {
    const rx = await startReceiver({ failFirst: 1, path: '/hooks/videos' });
    try {
      const tok = await t.h.token({ name: 'v1-callbacks' });
      const other = await t.h.token({ name: 'v1-callbacks-other' });
      const c = await createVideo(t.h, tok.secret, {
        model: 'wnx2.7-t2v',
        prompt: 'call me back',
        seconds: 2,
        callback_url: rx.url,
      });
      expect(c.status).toBe(200);
      const id = c.json.id as string;
      expect(await eventually(() => rx.hits.some((x) => x.answered === 200), 30_000)).toBe(true);
      expect(rx.hits.map((x) => x.answered)).toEqual([500, 200]);
      const mine = new Webhook(tok.callbackSecret);
      for (const hit of rx.hits) {
        const headers = hit.headers as Record<string, string>;
        expect(headers['webhook-id']).toBe(`cb_${id}`);
        expect(mine.verify(hit.body, headers)).toMatchObject({ id, object: 'video', status: 'completed' });
        expect(() => new Webhook(other.callbackSecret).verify(hit.body, headers)).toThrow('No matching signature');
      }
      // The payload is the video object a GET answers (the callback address itself is not in it).
      const payload = JSON.parse(rx.hits.at(-1)!.body) as Record<string, unknown>;
      const got = (await (await t.h.fetch(`/v1/videos/${id}`, { token: tok.secret })).json()) as Record<
        string,
        unknown
      >;
      expect(payload).toEqual(got);
      expect(rx.hits.at(-1)!.body).not.toContain('hooks/videos');
    } finally {
      await rx.close();
    }
  });

  it('a failed video is called back too, and the openai SDK passes callback_url through its multipart body', async () => {
    const rx = await startReceiver({ path: '/hooks/failed' });
    try {
      const tok = await t.h.token({ name: 'v1-callbacks-failed' });
      const client = openaiClient(t.h, tok.secret);
      const v = await client.videos.create({
        model: 'wnx2.7-t2v',
        prompt: 'boom sim-fault:fail-task',
        seconds: '4',
        callback_url: rx.url,
      } as never);
      expect(await eventually(() => rx.hits.length > 0, 30_000)).toBe(true);
      const hit = rx.hits[0]!;
      expect(new Webhook(tok.callbackSecret).verify(hit.body, hit.headers as Record<string, string>)).toMatchObject({
        id: v.id,
        status: 'failed',
        error: { code: expect.any(String) },
      });
    } finally {
      await rx.close();
    }
  });
});
