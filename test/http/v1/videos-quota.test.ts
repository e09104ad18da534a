// Quota through the real server: parallel /v1/videos creations place holds by
// compare-and-set, so a burst can never hold more than the quota; the refused ones get 429 insufficient_quota
// in the family B shape and never reach the upstream.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { ledgerOfTask, tokenRow } from '../../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../../support/videos.ts';

// hhx-1.1-t2v, 3 s, default 1080p: 3 × 1.6 units (the hold checked in videos.test.ts).
const HOLD = 3 * 1_600_000;

const t = useHarness({ env: FAST_TASK_ENV });

describe('/v1/videos quota', () => {
  it('10 parallel creations against a quota that fits 3 holds → exactly 3 tasks upstream, 7 × 429 insufficient_quota', async () => {
    const tok = await t.h.token({ name: 'burst', quota: 3 * HOLD + HOLD / 2 });
    const before = t.h.sim.requestsTo('video-synthesis').length;
    // stay-running keeps every accepted task open, so its hold stays in place for the whole burst.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.h
          .fetch('/v1/videos', {
            method: 'POST',
            token: tok.secret,
            json: { model: 'hhx-1.1-t2v', prompt: `burst ${i} sim-fault:stay-running`, seconds: 3 },
          })
          .then(async (r) => ({
            status: r.status,
            rid: r.headers.get('x-gateway-request-id'),
            json: (await r.json()) as {
              id?: string;
              error?: { code: string; type: string; request_id: string; message: string };
            },
          })),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(3);
    expect(new Set(ok.map((r) => r.json.id)).size).toBe(3);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.json.error?.code).toBe('insufficient_quota');
      expect(r.json.error?.request_id).toBe(r.rid);
      expect(r.json.error?.message).toContain(`(request id: ${r.rid})`);
    }
    // Only the accepted creations reached the upstream; the holds add up to exactly those three.
    expect(t.h.sim.requestsTo('video-synthesis').length - before).toBe(3);
    const row = await tokenRow(t.h, tok.id);
    expect(Number(row.held)).toBe(3 * HOLD);
    expect(Number(row.spent)).toBe(0);
    const holds = await t.h.store.db.selectFrom('holds').selectAll().where('token_id', '=', tok.id).execute();
    expect(holds.map((x) => x.state)).toEqual(['held', 'held', 'held']);
  });

  it('a failed task releases its hold, so the quota it held can be used again; nothing is charged', async () => {
    // The quota fits one hold, not two: a hold that was never released would refuse the second creation.
    const tok = await t.h.token({ name: 'reuse', quota: HOLD + HOLD / 2 });
    const first = await createVideo(t.h, tok.secret, {
      model: 'hhx-1.1-t2v',
      prompt: 'x sim-fault:fail-task',
      seconds: 3,
    });
    expect(first.status).toBe(200);
    const v = await waitTerminal(t.h, tok.secret, first.json.id as string);
    expect(v.status).toBe('failed');
    const mid = await tokenRow(t.h, tok.id);
    expect([Number(mid.held), Number(mid.spent)]).toEqual([0, 0]);
    const again = await createVideo(t.h, tok.secret, {
      model: 'hhx-1.1-t2v',
      prompt: 'z sim-fault:stay-running',
      seconds: 3,
    });
    expect(again.status).toBe(200);
    expect(Number((await tokenRow(t.h, tok.id)).held)).toBe(HOLD);
    expect(await ledgerOfTask(t.h, v.id)).toHaveLength(0);
  });
});
