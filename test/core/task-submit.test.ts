// The send of a task that waited for a parallel-task slot (taskSubmitVia): routed by the process that finds the slot
// free — often the poller thread, whose channels may not yet include one made a moment ago.
import { describe, expect, it, vi } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { taskSubmitVia } from '../../src/core/task-submit.ts';
import type { GatewayDeps } from '../../src/core/deps.ts';
import type { Channel } from '../../src/routing/channel-registry.ts';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';
import type { TaskRecord } from '../../src/tasks/types.ts';

const kling: Channel = {
  id: 'ch_k',
  name: 'k',
  kind: 'kling',
  baseUrl: 'http://u',
  keys: { accessKey: 'a', secretKey: 's' },
  models: null,
  priority: 0,
  weight: 1,
  upstreamAccount: null,
  taskSlots: null,
  modelLimits: null,
};

function depsWith(known: Channel[], stored: Channel[]) {
  let list = known;
  const channels = { forModel: () => list, reload: vi.fn(async () => void (list = stored)), markNotEntitled: vi.fn() };
  const deps = {
    catalogue: new Catalogue(DEFAULT_CATALOGUE),
    channels,
    breakers: new CircuitBreakers(),
    metrics: { upstreamAttempt: () => undefined },
  };
  return { deps: deps as unknown as Pick<GatewayDeps, 'catalogue' | 'channels' | 'breakers' | 'metrics'>, channels };
}

const task = { model: 'vidx-v2-6' } as TaskRecord;

describe('taskSubmitVia', () => {
  it('a process that knows no channel for the model reads the channels again, and sends through the one just made', async () => {
    const { deps, channels } = depsWith([], [kling]);
    const attempt = vi.fn(async (ch: Channel) => ch.id);
    expect(await taskSubmitVia(deps)(task, attempt)).toBe('ch_k');
    expect(channels.reload).toHaveBeenCalledTimes(1);
  });

  it('still none after reading them: no_channel, nothing sent', async () => {
    const { deps } = depsWith([], []);
    const attempt = vi.fn(async (ch: Channel) => ch.id);
    await expect(taskSubmitVia(deps)(task, attempt)).rejects.toMatchObject({ code: 'no_channel' });
    expect(attempt).not.toHaveBeenCalled();
  });

  it('a known channel is used without reading them again', async () => {
    const { deps, channels } = depsWith([kling], []);
    expect(await taskSubmitVia(deps)(task, async (ch: Channel) => ch.id)).toBe('ch_k');
    expect(channels.reload).not.toHaveBeenCalled();
  });
});
