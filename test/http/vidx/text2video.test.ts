import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../../simulator/index.ts';
import { useHarness } from '../../support/harness.ts';
import { holdOfTask, ledgerOfTask, tokenRow } from '../../support/store-rows.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';

const t = useHarness(vidxHarness());

const T2V = '/vidx/v1/videos/text2video';

describe('family A text2video end to end', () => {
  it('creates a task, maps names upstream, reaches succeed and settles once by reported seconds × mode', async () => {
    const { id: tokenId, secret } = await t.h.token({ quota: 100_000_000 });
    const c = await call<TaskData>(t.h, secret, 'POST', T2V, {
      model_name: 'vidx-v2-5',
      prompt: 'a lighthouse at dusk',
      mode: 'pro',
      duration: '10',
    });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ code: 0, message: 'success', data: { task_status: 'submitted' } });
    expect(c.body.data.task_id).toMatch(/^task_[0-9a-f]{32}$/);
    expect(typeof c.body.data.created_at).toBe('number');
    const up = t.h.sim
      .requestsTo('/v1/videos/text2video')
      .filter((r) => r.method === 'POST')
      .at(-1)!;
    const sent = up.body as Record<string, unknown>;
    expect(sent.model_name).toBe('kling-v2-5-turbo');
    expect(sent.duration).toBe('10');
    expect(sent.external_task_id).toBe(c.body.data.task_id);
    expect(String(up.headers.authorization)).toMatch(/^Bearer eyJ/);
    const hold = (await holdOfTask(t.h, c.body.data.task_id))!;
    expect(Number(hold.amount)).toBe(10 * 500_000);

    const done = await waitStatus(t.h, secret, `${T2V}/${c.body.data.task_id}`, 'succeed');
    expect(done.model_name).toBe('vidx-v2-5-turbo');
    const v = done.task_result.videos![0]!;
    expect(v.id).toMatch(/^video_[0-9a-f]{32}_0$/);
    expect(v.duration).toBe('10.1');
    expect(v.url).toMatch(/\.mp4$/);
    // Queried again: still one ledger entry.
    await call(t.h, secret, 'GET', `${T2V}/${c.body.data.task_id}`);
    const ledger = await ledgerOfTask(t.h, c.body.data.task_id);
    expect(ledger).toHaveLength(1);
    expect(Number(ledger[0]!.amount)).toBe(10.1 * 500_000);
    expect(ledger[0]!.model).toBe('vidx-v2-5-turbo');
    const tok = await tokenRow(t.h, tokenId);
    expect(Number(tok.spent)).toBe(10.1 * 500_000);
    expect(Number(tok.held)).toBe(0);
    // Upstream credentials and the signed JWT never reach a log line.
    const logs = t.h.logs.join('');
    expect(logs).not.toContain(DEFAULT_SIM_KEYS.klingSecretKey);
    expect(logs).not.toContain(String(up.headers.authorization).slice(7));
    expect(logs).toContain('"model":"vidx-v2-5-turbo"');
  });
});
