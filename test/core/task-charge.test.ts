// What a finished task is charged (core/charge.ts): the upstream's report as the driver read it, on the model's price
// basis, at the reported or created tier; the estimate when nothing billable was reported.
import { describe, expect, it } from 'vitest';
import { parseVideoUsage } from '../../src/adapters/dashscope/video-usage.ts';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { billedSeconds, finishedTaskUsage, videoTierFromSR } from '../../src/core/video-usage.ts';
import type { Usage } from '../../src/metering/types.ts';

const billed = (u: Record<string, unknown>, basis: 'output' | 'input+output') =>
  billedSeconds(parseVideoUsage(u), basis);
const catalogue = new Catalogue(DEFAULT_CATALOGUE);

describe('billed video seconds', () => {
  it('output basis: the output duration, else the total', () => {
    expect(billed({ video_duration: 5, SR: '720' }, 'output')).toEqual({ outputSeconds: 5, inputSeconds: 0 });
    expect(billed({ duration: 6.5 }, 'output')).toEqual({ outputSeconds: 6.5, inputSeconds: 0 });
    expect(billed({ SR: 1080 }, 'output')).toBeNull();
  });

  it('input+output basis: in + out when both are reported, else the total split by the input', () => {
    expect(
      billed({ duration: 13.24, input_video_duration: 6.62, output_video_duration: 6.62 }, 'input+output'),
    ).toEqual({
      outputSeconds: 6.62,
      inputSeconds: 6.62,
    });
    expect(billed({ duration: 12, input_video_duration: 5 }, 'input+output')).toEqual({
      outputSeconds: 7,
      inputSeconds: 5,
    });
    expect(billed({ duration: 12 }, 'input+output')).toEqual({ outputSeconds: 12, inputSeconds: 0 });
  });

  it('zero seconds reported is no billable report (null: the task is charged its estimate), on both bases', () => {
    expect(billed({ video_duration: 0, SR: '720' }, 'output')).toBeNull();
    expect(billed({ duration: 0 }, 'output')).toBeNull();
    expect(billed({ duration: 0, input_video_duration: 0, output_video_duration: 0 }, 'input+output')).toBeNull();
    expect(billed({ duration: 0 }, 'input+output')).toBeNull();
  });

  it('an input reported longer than the total bills the total, never a negative output', () => {
    const b = billed({ duration: 8, input_video_duration: 10 }, 'input+output')!;
    expect(b).toEqual({ outputSeconds: 0, inputSeconds: 8 });
    expect(b.inputSeconds + b.outputSeconds).toBe(8);
  });

  it('maps the provider SR field to a tier', () => {
    expect(videoTierFromSR(1080)).toBe('1080p');
    expect(videoTierFromSR('1080P')).toBe('1080p');
    expect(videoTierFromSR(720)).toBe('720p');
    expect(videoTierFromSR('480P')).toBe('720p');
    expect(videoTierFromSR(undefined)).toBeNull();
    expect(videoTierFromSR('x')).toBeNull();
  });
});

describe("a finished task's charge", () => {
  const video = (billingModel: string, tier: string, usage: Usage) => ({ billingModel, tier, usage });

  it("a /v1 video: reported seconds on the model's basis, at the reported resolution", () => {
    const est: Usage = { kind: 'video', outputSeconds: 5, inputSeconds: 0, tier: '1080p' };
    expect(
      finishedTaskUsage(catalogue, video('wnx2.7-t2v', '1080p', est), parseVideoUsage({ video_duration: 4, SR: 720 })),
    ).toEqual({
      kind: 'video',
      outputSeconds: 4,
      inputSeconds: 0,
      tier: '720p',
    });
    // An edit model bills input and output: the same report is split by the input on its basis.
    const edit: Usage = { kind: 'video', outputSeconds: 15, inputSeconds: 15, tier: '720p' };
    expect(
      finishedTaskUsage(
        catalogue,
        video('hhx-1.0-video-edit', '720p', edit),
        parseVideoUsage({ duration: 12, input_video_duration: 5 }),
      ),
    ).toEqual({
      kind: 'video',
      outputSeconds: 7,
      inputSeconds: 5,
      tier: '720p',
    });
    expect(
      finishedTaskUsage(
        catalogue,
        video('wnx2.7-t2v', '720p', est),
        parseVideoUsage({ duration: 12, input_video_duration: 5 }),
      ),
    ).toEqual({
      kind: 'video',
      outputSeconds: 12,
      inputSeconds: 0,
      tier: '720p',
    });
  });

  it('without a reported resolution, the tier the task was created at', () => {
    const est: Usage = { kind: 'video', outputSeconds: 5, tier: '720p' };
    expect(finishedTaskUsage(catalogue, video('wnx2.7-t2v', '720p', est), { outputSeconds: 3 })).toMatchObject({
      tier: '720p',
      outputSeconds: 3,
    });
    expect(finishedTaskUsage(catalogue, video('wnx2.7-t2v', '1080p', est), { outputSeconds: 3 })).toMatchObject({
      tier: '1080p',
    });
  });

  it("a family A task: reported seconds at the task's mode", () => {
    const est: Usage = { kind: 'video-mode', outputSeconds: 5, tier: 'pro' };
    expect(finishedTaskUsage(catalogue, video('vidx-v2-6', 'pro', est), { outputSeconds: 10 })).toEqual({
      kind: 'video-mode',
      outputSeconds: 10,
      tier: 'pro',
    });
    expect(
      finishedTaskUsage(catalogue, video('vidx-v2-6', 'std', { ...est, tier: 'std' }), { outputSeconds: 4.9 }),
    ).toEqual({
      kind: 'video-mode',
      outputSeconds: 4.9,
      tier: 'std',
    });
  });

  it('nothing billable reported (no report, no seconds, zero seconds): the estimate', () => {
    const est: Usage = { kind: 'video', outputSeconds: 5, tier: '720p' };
    expect(finishedTaskUsage(catalogue, video('wnx2.7-t2v', '720p', est), undefined)).toBe(est);
    expect(finishedTaskUsage(catalogue, video('wnx2.7-t2v', '720p', est), parseVideoUsage({ SR: 1080 }))).toBe(est);
    expect(finishedTaskUsage(catalogue, video('wnx2.7-t2v', '720p', est), parseVideoUsage({ video_duration: 0 }))).toBe(
      est,
    );
    const mode: Usage = { kind: 'video-mode', outputSeconds: 5, tier: 'std' };
    expect(finishedTaskUsage(catalogue, video('vidx-v2-6', 'std', mode), {})).toBe(mode);
    expect(finishedTaskUsage(catalogue, video('vidx-v2-6', 'std', mode), { outputSeconds: 0 })).toBe(mode);
  });
});
