// The seconds a DashScope video task is billed for, from the usage keys the task query reports.
import { describe, expect, it } from 'vitest';
import { billedSeconds, parseVideoUsage } from '../../../src/adapters/dashscope/video-usage.ts';

const billed = (u: Record<string, unknown>, basis: 'output' | 'input+output') => billedSeconds(parseVideoUsage(u), basis);

describe('billed video seconds', () => {
  it('output basis: the output duration, else the total', () => {
    expect(billed({ video_duration: 5, SR: '720' }, 'output')).toEqual({ outputSeconds: 5, inputSeconds: 0 });
    expect(billed({ duration: 6.5 }, 'output')).toEqual({ outputSeconds: 6.5, inputSeconds: 0 });
    expect(billed({ SR: 1080 }, 'output')).toBeNull();
  });

  it('input+output basis: in + out when both are reported, else the total split by the input', () => {
    expect(billed({ duration: 13.24, input_video_duration: 6.62, output_video_duration: 6.62 }, 'input+output')).toEqual({ outputSeconds: 6.62, inputSeconds: 6.62 });
    expect(billed({ duration: 12, input_video_duration: 5 }, 'input+output')).toEqual({ outputSeconds: 7, inputSeconds: 5 });
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
});
