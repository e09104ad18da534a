// The built-in family A endpoint table (upstream-protocols.md §7 "Which endpoint takes which model") as catalogue
// data, and what a model without `vidx` data gets.
import { describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import type { ModelEntry } from '../../src/catalogue/types.ts';
import { vidxEndpointOf } from '../../src/catalogue/vidx-endpoints.ts';

const cat = new Catalogue(DEFAULT_CATALOGUE);
const entry = (id: string): ModelEntry => cat.get(id)!;

describe('family A endpoints (catalogue data)', () => {
  it('text2video: the classic models on the upstream text2video, o1 on omni-video, v1-5 and v2-1 on none', () => {
    const on = (id: string) => vidxEndpointOf(entry(id), 'text2video')?.endpoint ?? null;
    expect(
      ['vidx-v1', 'vidx-v1-6', 'vidx-v2-master', 'vidx-v2-1-master', 'vidx-v2-5-turbo', 'vidx-v2-6', 'vidx-v3'].map(on),
    ).toEqual(Array(7).fill('text2video'));
    expect(on('vidx-video-o1')).toBe('omni-video');
    expect([on('vidx-v1-5'), on('vidx-v2-1'), on('vidx-v3-omni')]).toEqual([null, null, null]);
  });

  it('the fields each takes: cfg_scale v1/v1-6, sound v2-6, no mode for the masters, o1 text-only omni rules', () => {
    const fields = (id: string) => vidxEndpointOf(entry(id), 'text2video')!.fields;
    expect(fields('vidx-v1')).toContain('cfg_scale');
    expect(fields('vidx-v2-5-turbo')).not.toContain('cfg_scale');
    expect(fields('vidx-v2-6')).toContain('sound');
    for (const m of ['vidx-v2-master', 'vidx-v2-1-master']) expect(fields(m)).not.toContain('mode');
    expect(vidxEndpointOf(entry('vidx-video-o1'), 'text2video')).toEqual({
      endpoint: 'omni-video',
      fields: ['mode'],
      durations: ['5', '10'],
      defaultMode: 'std',
      aspectRatioRequired: true,
    });
  });

  it('omni-video durations by model; multi-elements sends no model_name', () => {
    const o1 = vidxEndpointOf(entry('vidx-video-o1'), 'omni-video')!;
    expect([o1.durations, o1.mediaDurations]).toEqual([
      ['5', '10'],
      ['3', '4', '5', '6', '7', '8', '9', '10'],
    ]);
    expect(vidxEndpointOf(entry('vidx-v3-omni'), 'omni-video')!.durations).toHaveLength(13);
    expect(vidxEndpointOf(entry('vidx-v1-6-multi-elements'), 'multi-elements')!.sendModelName).toBe(false);
  });

  it("a model added without vidx data takes its kind's defaults", () => {
    const added = { ...entry('vidx-v1'), id: 'vidx-v9' } as ModelEntry;
    delete added.vidx;
    expect(vidxEndpointOf(added, 'text2video')).toMatchObject({
      endpoint: 'text2video',
      fields: ['mode', 'negative_prompt', 'camera_control'],
    });
    expect(vidxEndpointOf(added, 'omni-video')).toBeNull();
  });
});
