// The simulator's Qwen-Image wire: what the gateway's images adapter is written against.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS, startSimulator } from '../../simulator/index.ts';
import { PNG_SIGNATURE } from '../../simulator/dashscope/images-png.ts';
import { GENEROUS_SIM_LIMITS, useSimulator } from '../support/simulator.ts';

const PATH = '/api/v1/services/aigc/multimodal-generation/generation';

const s = useSimulator({ taskDurationMs: 150 });

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(s.sim.url + path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const gen = (model: string, text: string, parameters: Record<string, unknown> = {}, images: string[] = []) => ({
  model,
  input: { messages: [{ role: 'user', content: [...images.map((image) => ({ image })), { text }] }] },
  parameters,
});

interface SyncAnswer {
  output: { choices: Array<{ message: { content: Array<{ image: string }> } }> };
  usage: { width: number; height: number; image_count: number };
  request_id: string;
}

describe('simulator: Qwen-Image sync (multimodal-generation)', () => {
  it('generates n images as signed result URLs serving real PNGs', async () => {
    const r = await post(PATH, gen('qwen-image-2.0', 'a red fox', { size: '1024*768', n: 3 }));
    expect(r.status).toBe(200);
    const b = (await r.json()) as SyncAnswer;
    const imgs = b.output.choices[0]!.message.content;
    expect(imgs).toHaveLength(3);
    expect(b.usage).toEqual({ width: 1024, height: 768, image_count: 3 });
    expect(typeof b.request_id).toBe('string');
    expect(imgs[0]!.image).toMatch(/\/results\/img\/[a-f0-9]{32}\.png\?Expires=\d+&/);
    const file = await fetch(imgs[0]!.image);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const other = Buffer.from(await (await fetch(imgs[1]!.image)).arrayBuffer());
    expect(other.equals(bytes)).toBe(false);
  });

  it('refuses result files without a signature, expired, or unknown', async () => {
    const b = (await (await post(PATH, gen('qwen-image-2.0', 'x'))).json()) as SyncAnswer;
    const url = new URL(b.output.choices[0]!.message.content[0]!.image);
    expect((await fetch(url.origin + url.pathname)).status).toBe(403);
    url.searchParams.set('Expires', '1000');
    expect((await fetch(url)).status).toBe(403);
    expect((await fetch(`${s.sim.url}/results/img/${'0'.repeat(32)}.png?Expires=9999999999&Signature=x`)).status).toBe(
      404,
    );
  });

  it('edits with 1-3 images (URL or data URI) and rejects more', async () => {
    const data = 'data:image/png;base64,iVBORw0KGgo=';
    const ok = await post(
      PATH,
      gen('qwen-image-edit-plus', 'make it blue', { n: 2 }, ['https://example.com/a.png', data]),
    );
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as SyncAnswer).usage.image_count).toBe(2);
    const four = await post(
      PATH,
      gen('qwen-image-2.0', 'x', {}, [
        'https://e.com/1.png',
        'https://e.com/2.png',
        'https://e.com/3.png',
        'https://e.com/4.png',
      ]),
    );
    expect(four.status).toBe(400);
    expect(((await four.json()) as { code: string }).code).toBe('InvalidParameter');
  });

  it('enforces model rules: sizes, n, edit-only and generate-only models', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [gen('qwen-image-2.0', 'x', { size: '100*100' }), /total pixels/],
      [gen('qwen-image-2.0', 'x', { size: '1024x1024' }), /W\*H/],
      [gen('qwen-image-2.0', 'x', { n: 7 }), /between 1 and 6/],
      [gen('qwen-image-plus', 'x', { size: '1024*1024' }), /one of/],
      [gen('qwen-image-plus', 'x', { n: 2 }), /between 1 and 1/],
      [gen('qwen-image-edit-plus', 'x'), /requires at least one input image/],
      [gen('qwen-image-plus', 'x', {}, ['https://e.com/a.png']), /does not accept input images/],
      [gen('qwen-image-2.0', 'x', {}, ['ftp://e.com/a.png']), /public http/],
      [gen('qwen-image-9', 'x'), /Model not exist/],
    ];
    for (const [body, re] of cases) {
      const r = await post(PATH, body);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { message: string }).message).toMatch(re);
    }
  });

  it('faults: partial results, no output, upstream error status', async () => {
    const partial = (await (
      await post(PATH, gen('qwen-image-2.0', 'sim-fault:partial', { n: 4 }))
    ).json()) as SyncAnswer;
    expect(partial.output.choices[0]!.message.content).toHaveLength(2);
    expect(partial.usage.image_count).toBe(2);
    const partial1 = (await (
      await post(PATH, gen('qwen-image-2.0', 'sim-fault:partial:1', { n: 4 }))
    ).json()) as SyncAnswer;
    expect(partial1.usage.image_count).toBe(1);
    const none = await post(PATH, gen('qwen-image-edit-plus', 'sim-fault:no-output', {}, ['https://e.com/a.png']));
    expect(none.status).toBe(200);
    const noneBody = (await none.json()) as SyncAnswer;
    expect(noneBody.output.choices[0]!.message.content).toEqual([]);
    expect(noneBody.usage.image_count).toBe(0);
    const err = await post(PATH, gen('qwen-image-2.0', 'sim-fault:status:429'));
    expect(err.status).toBe(429);
    expect(((await err.json()) as { code: string }).code).toBe('Throttling.RateQuota');
  });

  it('needs the API key', async () => {
    const r = await fetch(s.sim.url + PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(gen('qwen-image-2.0', 'x')),
    });
    expect(r.status).toBe(401);
  });
});

describe('simulator: Qwen-Image async (image-synthesis + task query)', () => {
  const ASYNC = '/api/v1/services/aigc/text2image/image-synthesis';
  const body = (prompt: string) => ({
    model: 'qwen-image-plus',
    input: { prompt },
    parameters: { size: '1328*1328', n: 1 },
  });

  async function poll(id: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 50; i++) {
      const r = await fetch(`${s.sim.url}/api/v1/tasks/${id}`, {
        headers: { authorization: `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}` },
      });
      const b = (await r.json()) as { output: { task_status: string } };
      if (!['PENDING', 'RUNNING'].includes(b.output.task_status)) return b as unknown as Record<string, unknown>;
      await new Promise((res) => setTimeout(res, 60));
    }
    throw new Error('task did not finish');
  }

  it('needs X-DashScope-Async: enable', async () => {
    const r = await post(ASYNC, body('a cat'));
    expect(r.status).toBe(403);
    expect(((await r.json()) as { message: string }).message).toMatch(/synchronous/);
  });

  it('runs PENDING → SUCCEEDED with results[].url and usage.image_count', async () => {
    const r = await post(ASYNC, body('a cat'), { 'x-dashscope-async': 'enable' });
    const created = (await r.json()) as { output: { task_id: string; task_status: string } };
    expect(created.output.task_status).toBe('PENDING');
    const done = (await poll(created.output.task_id)) as {
      output: { task_status: string; results: Array<{ url: string; orig_prompt: string }> };
      usage: { image_count: number };
    };
    expect(done.output.task_status).toBe('SUCCEEDED');
    expect(done.output.results).toHaveLength(1);
    expect(done.output.results[0]!.orig_prompt).toBe('a cat');
    expect(done.usage.image_count).toBe(1);
    expect((await fetch(done.output.results[0]!.url)).status).toBe(200);
  });

  it('fails a task on the fail-task fault and refuses sync-only models', async () => {
    const r = await post(ASYNC, body('sim-fault:fail-task'), { 'x-dashscope-async': 'enable' });
    const id = ((await r.json()) as { output: { task_id: string } }).output.task_id;
    const done = (await poll(id)) as { output: { task_status: string; code: string } };
    expect(done.output.task_status).toBe('FAILED');
    expect(done.output.code).toBe('InternalError.Algo');
    const bad = await post(ASYNC, { ...body('x'), model: 'qwen-image-2.0' }, { 'x-dashscope-async': 'enable' });
    expect(bad.status).toBe(400);
  });
});

describe('simulator: result URLs at a public address', () => {
  it('hands out result URLs at publicUrl (the address other containers reach it at), served from where it listens', async () => {
    const sim = await startSimulator({
      host: '127.0.0.1',
      publicUrl: 'http://simulator.internal:9090/',
      ...GENEROUS_SIM_LIMITS,
    });
    try {
      expect(sim.url).toBe('http://simulator.internal:9090');
      const r = await fetch(`http://127.0.0.1:${sim.port}${PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(gen('qwen-image-2.0', 'a red fox', { size: '1024*768', n: 1 })),
      });
      expect(r.status).toBe(200);
      const url = new URL(((await r.json()) as SyncAnswer).output.choices[0]!.message.content[0]!.image);
      expect(url.origin).toBe('http://simulator.internal:9090');
      // The path and query are served by the simulator where it listens.
      expect((await fetch(`http://127.0.0.1:${sim.port}${url.pathname}${url.search}`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
