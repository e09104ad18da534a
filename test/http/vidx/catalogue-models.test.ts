// Today's video models as data: the catalogue file shown in docs/api.md (read from the doc itself) adds Kling 3.0 on
// text2video and omni-video, wan2.6 with sound, and an input-seconds price for wnx2.7-videoedit. Each task is created,
// finished by the simulator and charged exactly the price formula applied to what the simulator reported, on the
// store TOLLWAY_TEST_DIALECT names. Bad values of the new fields are refused before any hold, naming the field.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { holdOfTask, ledgerOfTask } from '../../support/store-rows.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { createVideo, waitTerminal } from '../../support/videos.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';

const T2V = '/vidx/v1/videos/text2video';
const OMNI = '/vidx/v1/videos/omni-video';

/** The JSON block after the doc's catalogue-example marker. */
function docCatalogue(): string {
  const doc = readFileSync(join(import.meta.dirname, '../../../docs/api.md'), 'utf8');
  const at = doc.indexOf('<!-- catalogue-example -->');
  const m = /```json\n([\s\S]*?)```/.exec(doc.slice(at));
  if (at < 0 || !m) throw new Error('docs/api.md has no catalogue example');
  return m[1]!;
}

const file = join(tempDir('tw-catalogue-models-'), 'catalogue.json');
writeFileSync(file, docCatalogue());
const t = useHarness(vidxHarness({ env: { TOLLWAY_CATALOGUE_FILE: file } }));

// The example's prices (micro-units).
const V3 = { std: 84_000, pro: 112_000, k4: 420_000, sound: 42_000, shot: 10_000 };
const ms = (s: number) => Math.round(s * 1000);
const ceilK = (n: number) => Math.ceil(n / 1000);

/** Create a family A task, wait for it to succeed; its hold, its one charge and what the upstream reported. */
async function run(path: string, body: Record<string, unknown>) {
  const c = await call<TaskData>(t.h, t.token, 'POST', path, body);
  expect(c.body.code, JSON.stringify(c.body)).toBe(0);
  const id = c.body.data.task_id;
  const hold = Number((await holdOfTask(t.h, id))!.amount);
  const done = await waitStatus(t.h, t.token, `${path}/${id}`, 'succeed');
  const ledger = await ledgerOfTask(t.h, id);
  expect(ledger).toHaveLength(1);
  const seconds = Number(done.task_result.videos![0]!.duration);
  return { hold, amount: Number(ledger[0]!.amount), quantities: JSON.parse(ledger[0]!.quantities), seconds };
}

describe('Kling 3.0 from the catalogue file alone', () => {
  it('multi-shot text2video: held and charged at its per-second and per-shot price', async () => {
    const r = await run(T2V, {
      model_name: 'vidx-v3-0',
      prompt: 'a harbour at dawn',
      duration: '10',
      multi_shot: true,
      shot_type: 'customize',
      multi_prompt: [
        { index: 1, prompt: 'boats leave', duration: '4' },
        { index: 2, prompt: 'gulls circle', duration: '6' },
      ],
    });
    expect(r.hold).toBe(10 * V3.std + 2 * V3.shot);
    expect(r.seconds).toBe(10.1);
    expect(r.amount).toBe(ceilK(ms(r.seconds) * V3.std) + 2 * V3.shot);
    expect(r.quantities).toMatchObject({ shots: 2, tier: 'std', output_seconds: 10.1 });
    // The shots went upstream as asked, on kling-v3.
    const up = t.h.sim.requestsTo('/v1/videos/text2video').filter((x) => JSON.stringify(x.body).includes('gulls'));
    expect(up[0]!.body).toMatchObject({ model_name: 'kling-v3', multi_shot: true, multi_prompt: [{}, {}] });
  });

  it('sound on costs its surcharge per reported second, sound off does not (omni-video, kling-v3-omni)', async () => {
    const on = await run(OMNI, { model_name: 'vidx-v3-0', prompt: 'rain on a tin roof', duration: '5', sound: 'on' });
    const off = await run(OMNI, { model_name: 'vidx-v3-0', prompt: 'rain, silent', duration: '5', sound: 'off' });
    expect(on.hold).toBe(5 * (V3.pro + V3.sound));
    expect(on.amount).toBe(ceilK(ms(on.seconds) * (V3.pro + V3.sound)));
    expect(off.amount).toBe(ceilK(ms(off.seconds) * V3.pro));
    expect(on.amount).toBeGreaterThan(off.amount);
    const up = t.h.sim.requestsTo('/v1/videos/omni-video').filter((x) => JSON.stringify(x.body).includes('tin roof'));
    expect(up[0]!.body).toMatchObject({ model_name: 'kling-v3-omni', sound: 'on' });
  });

  it('4k is charged at its own rate', async () => {
    const r = await run(T2V, { model_name: 'vidx-v3-0', prompt: 'a glacier', duration: '3', resolution: '4k' });
    expect(r.hold).toBe(3 * V3.k4);
    expect(r.amount).toBe(ceilK(ms(r.seconds) * V3.k4));
    expect(r.quantities).toMatchObject({ tier: '4k' });
  });

  it.each([
    [{ duration: '5', multi_shot: true, multi_prompt: [{ index: 1, prompt: 'a', duration: '4' }] }, 'multi_prompt'],
    [
      {
        duration: '7',
        multi_shot: true,
        multi_prompt: Array.from({ length: 7 }, (_, i) => ({ index: i + 1, prompt: 'a', duration: '1' })),
      },
      'multi_prompt',
    ],
    [
      { duration: '5', multi_shot: true, multi_prompt: [{ index: 2, prompt: 'a', duration: '5' }] },
      'multi_prompt[0].index',
    ],
    [{ duration: '5', multi_shot: 'yes' }, 'multi_shot'],
    [{ duration: '5', multi_prompt: [{ index: 1, prompt: 'a', duration: '5' }] }, 'multi_prompt'],
    [{ duration: '5', sound: 'loud' }, 'sound'],
    [{ duration: '5', resolution: '8k' }, 'resolution'],
    [{ duration: '16' }, 'duration'],
  ])('%j is refused before any hold, naming %s', async (fields, param) => {
    const sent = t.h.sim.requestsTo('/v1/videos/text2video').length;
    const r = await call(t.h, t.token, 'POST', T2V, { model_name: 'vidx-v3-0', prompt: 'p', ...fields });
    expect([r.status, r.body.code]).toEqual([400, 1201]);
    expect(r.body.message).toContain(param);
    expect(t.h.sim.requestsTo('/v1/videos/text2video').length).toBe(sent);
    const holds = await t.h.store.db.selectFrom('holds').select('hold_key').where('token_id', '=', t.tokenId).execute();
    const tasks = await t.h.store.db.selectFrom('tasks').select('id').where('token_id', '=', t.tokenId).execute();
    expect(holds.length).toBe(tasks.length);
  });

  it('a model that does not take multi_shot refuses it, naming the field', async () => {
    const r = await call(t.h, t.token, 'POST', T2V, {
      model_name: 'vidx-v1',
      prompt: 'p',
      multi_shot: true,
      multi_prompt: [{ index: 1, prompt: 'a', duration: '5' }],
    });
    expect([r.status, r.body.code]).toEqual([400, 1201]);
    expect(r.body.message).toContain('multi_shot');
  });
});

describe('the video price through PUT /admin/prices', () => {
  it('is set with history, holds and charges at once; a bad tier is refused naming it', async () => {
    const price = { unit: 'video', perSecond: { std: 50_000, pro: 60_000 }, soundPerSecond: 30_000, perRun: 7 };
    const bad = await t.h.admin('/admin/prices/vidx-v2-6', {
      method: 'PUT',
      json: { ...price, perSecond: { '8k': 1 } },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('price.perSecond.8k');
    expect((await t.h.admin('/admin/prices/vidx-v2-6', { method: 'PUT', json: price })).status).toBe(200);
    try {
      const hist = await t.h.admin('/admin/prices/vidx-v2-6/history');
      const [last] = ((await hist.json()) as { data: Array<{ new_price: unknown; old_price: unknown }> }).data;
      expect(last!.new_price).toEqual(price);
      expect(last!.old_price).toMatchObject({ unit: 'video', soundPerSecond: 125_000 });
      const r = await run(T2V, { model_name: 'vidx-v2-6', prompt: 'a kettle', duration: '5', sound: 'on' });
      expect(r.hold).toBe(5 * (50_000 + 30_000) + 7);
      expect(r.amount).toBe(ceilK(ms(r.seconds) * (50_000 + 30_000)) + 7);
    } finally {
      await t.h.admin('/admin/prices/vidx-v2-6', { method: 'DELETE' });
    }
  });
});

describe('/v1 video models from the catalogue file', () => {
  it('wan2.6: the sound the upstream reports is charged per second', async () => {
    const c = await createVideo(t.h, t.token, { model: 'wnx2.6-t2v', prompt: 'a waterfall', seconds: '5' });
    expect(c.status, JSON.stringify(c.json)).toBe(200);
    const v = await waitTerminal(t.h, t.token, String(c.json.id));
    expect(v.status).toBe('completed');
    const [line] = await ledgerOfTask(t.h, v.id);
    expect(Number(line!.amount)).toBe(5 * (1_000_000 + 200_000));
    expect(JSON.parse(line!.quantities)).toMatchObject({ sound: true, tier: '1080p' });
  });

  it('an edit is charged its output seconds at the tier rate and its input seconds at inputPerSecond', async () => {
    const c = await createVideo(t.h, t.token, {
      model: 'wnx2.7-videoedit',
      prompt: 'make it snow',
      seconds: '4',
      references: { video: ['https://cdn.example.com/clip.mp4'] },
    });
    expect(c.status, JSON.stringify(c.json)).toBe(200);
    expect(Number((await holdOfTask(t.h, String(c.json.id)))!.amount)).toBe(4 * 1_000_000 + 4 * 100_000);
    const v = await waitTerminal(t.h, t.token, String(c.json.id));
    expect(v.status).toBe('completed');
    const [line] = await ledgerOfTask(t.h, v.id);
    // The simulator's source video is 6.62 s long.
    expect(Number(line!.amount)).toBe(ceilK(4000 * 1_000_000 + 6620 * 100_000));
    expect(JSON.parse(line!.quantities)).toMatchObject({ output_seconds: 4, input_seconds: 6.62 });
  });
});
