// The wan2.7 duration rules of upstream-protocols.md §6: r2v takes 2–15 s, at most 10 when a reference video is given;
// videoedit takes 2–10 s, and without one keeps its source's length (duration 0 upstream), held at its longest.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { createVideo, lastSynthesisBody } from '../../support/videos.ts';
import { holdOfTask } from '../../support/store-rows.ts';

const t = useHarness({ env: { TOLLWAY_TASK_POLLER: '0' } });
const IMG = 'https://img.example.com/p1.png';
const VID = 'https://cdn.example.com/v1.mp4';

describe('wan2.7 durations', () => {
  it('r2v with image references only: 12 s goes upstream as asked; with a reference video 12 s is refused', async () => {
    const r = await createVideo(t.h, t.token, {
      model: 'wnx2.7-r2v',
      prompt: 'character1 waves',
      seconds: 12,
      input_reference: { image_url: IMG },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(lastSynthesisBody(t.h).parameters.duration).toBe(12);
    const v = await createVideo(t.h, t.token, {
      model: 'wnx2.7-r2v',
      prompt: 'character1 waves',
      seconds: 12,
      references: { video: [VID] },
    });
    expect(v.status).toBe(400);
    expect(JSON.stringify(v.json)).toContain('invalid_duration');
  });

  it('videoedit without seconds keeps the source length (duration 0 upstream) and holds its longest, 10 s; with seconds, as asked', async () => {
    const keep = await createVideo(t.h, t.token, {
      model: 'wnx2.7-videoedit',
      prompt: 'make it snow',
      references: { video: [VID] },
    });
    expect(keep.status, JSON.stringify(keep.json)).toBe(200);
    expect(lastSynthesisBody(t.h).parameters.duration).toBe(0);
    const six = await createVideo(t.h, t.token, {
      model: 'wnx2.7-videoedit',
      prompt: 'make it snow',
      seconds: 6,
      references: { video: [VID] },
    });
    expect(six.status, JSON.stringify(six.json)).toBe(200);
    expect(lastSynthesisBody(t.h).parameters.duration).toBe(6);
    const [hKeep, hSix] = await Promise.all([
      holdOfTask(t.h, String(keep.json.id)),
      holdOfTask(t.h, String(six.json.id)),
    ]);
    expect(Number(hKeep!.amount)).toBeCloseTo((Number(hSix!.amount) * 10) / 6, 0);
  });
});
