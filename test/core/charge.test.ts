import { describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { estimateUsage, inputSize, videoHoldEstimate } from '../../src/core/charge.ts';

const cat = new Catalogue(DEFAULT_CATALOGUE);

describe('videoHoldEstimate (the hold every video creation places)', () => {
  it('requested or default seconds at the requested or default tier', () => {
    expect(videoHoldEstimate(cat.get('hhx-1.1-t2v')!, {})).toEqual({ kind: 'video', outputSeconds: 5, inputSeconds: 0, tier: '1080p' });
    expect(videoHoldEstimate(cat.get('wnx2.7-t2v')!, { seconds: 8, resolution: '720p' })).toEqual({ kind: 'video', outputSeconds: 8, inputSeconds: 0, tier: '720p' });
  });
  it('an input+output edit model without a length parameter holds the longest it can bill: 15 s in, 15 s out', () => {
    // The upstream cuts the source video to 15 s and the edit is as long as its source: the charge is at most 30 s.
    const edit = cat.get('hhx-1.0-video-edit')!;
    expect(edit.video).toMatchObject({ duration: false, maxSeconds: 15 });
    expect(videoHoldEstimate(edit, {})).toEqual({ kind: 'video', outputSeconds: 15, inputSeconds: 15, tier: '720p' });
    expect(videoHoldEstimate(edit, { seconds: 6, resolution: '1080p' })).toEqual({ kind: 'video', outputSeconds: 15, inputSeconds: 15, tier: '1080p' });
  });
  it('an input+output model with a length parameter counts the requested length for the input as well', () => {
    const withLength = { ...cat.get('hhx-1.0-video-edit')!, video: { ...cat.get('hhx-1.0-video-edit')!.video!, duration: true } };
    expect(videoHoldEstimate(withLength, { seconds: 6 })).toEqual({ kind: 'video', outputSeconds: 6, inputSeconds: 6, tier: '720p' });
  });
  it('family A models hold by mode; omni defaults to pro, the others to std', () => {
    expect(videoHoldEstimate(cat.get('vidx-v3-omni')!, { seconds: 10 })).toEqual({ kind: 'video-mode', outputSeconds: 10, tier: 'pro' });
    expect(videoHoldEstimate(cat.get('vidx-v1')!, { seconds: 5 })).toEqual({ kind: 'video-mode', outputSeconds: 5, tier: 'std' });
    expect(videoHoldEstimate(cat.get('vidx-v1')!, { seconds: 10, mode: 'pro' })).toEqual({ kind: 'video-mode', outputSeconds: 10, tier: 'pro' });
  });
  it('a text model has no video hold', () => {
    expect(() => videoHoldEstimate(cat.get('qwx3.7-plus')!, {})).toThrow(/not a video model/);
  });
});

describe('text estimate', () => {
  it('4 characters a token, 258 tokens a media part; roles, types and URLs are not text', () => {
    const size = inputSize({ messages: [{ role: 'user', content: [{ type: 'text', text: 'abcdefgh' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] });
    expect(size).toEqual({ chars: 8, media: 1 });
    expect(estimateUsage(size, 9)).toEqual({ kind: 'tokens', inputTokens: 2 + 258, outputTokens: 3 });
  });
});
