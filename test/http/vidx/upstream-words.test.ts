// Upstream words never reach a client (family A and B, Kling and DashScope): a refusal is answered with our catalogue
// code and our own message; the upstream's status, code and message — its model names (kling-…), hosts, echoed
// credentials — are in the request's log line and request-log row only. A failed task's client-visible error is ours
// too; the upstream's reason is in the admin task view.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { requestLogRow } from '../../support/store-rows.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';
import { until } from '../../support/wait.ts';

const T2V = '/vidx/v1/videos/text2video';
// An operator's catalogue file that (wrongly) sends o1 to the upstream's text2video: the upstream refuses it there.
const dir = tempDir('tw-upstream-words-');
const catalogueFile = join(dir, 'catalogue.json');
writeFileSync(
  catalogueFile,
  JSON.stringify([{ model: 'vidx-video-o1', vidx: { text2video: { endpoint: 'text2video', fields: ['mode'] } } }]),
);

const t = useHarness(vidxHarness({ env: { TOLLWAY_CATALOGUE_FILE: catalogueFile } }));

/** The request's access line (the log line every request gets). */
function accessLine(rid: string): { upstream_error?: string; error_code?: string } | undefined {
  return t.h.logs
    .map((l) => JSON.parse(l) as { msg?: string; request_id?: string; upstream_error?: string })
    .find((l) => l.msg === 'request' && l.request_id === rid);
}

describe('family A: upstream refusals in our words', () => {
  it("a 1201 naming kling-video-o1 reaches the client as our 1201 without 'kling'; the upstream's words are in the log line and the request-log row", async () => {
    const r = await call(t.h, t.token, 'POST', T2V, { model_name: 'vidx-video-o1', prompt: 'a paper crane' });
    // The upstream really refused it, naming its own model.
    const up = t.h.sim
      .requestsTo('/v1/videos/text2video')
      .filter((x) => x.method === 'POST' && JSON.stringify(x.body).includes('paper crane'));
    expect((up[0]!.body as { model_name: string }).model_name).toBe('kling-video-o1');
    expect([r.status, r.body.code]).toEqual([400, 1201]);
    expect(r.body.message).toBe('The upstream refused the value of model_name');
    expect(JSON.stringify(r.body)).not.toMatch(/kling/i);
    const words = "HTTP 400 1201: model_name 'kling-video-o1' is not supported by text2video";
    expect(accessLine(r.rid!)?.upstream_error).toBe(words);
    const row = await requestLogRow(t.h, r.rid!);
    expect([row.error_code, row.upstream_error]).toEqual(['upstream_invalid_request', words]);
    // The operator reads it through the admin request log.
    const logs = (await (await t.h.admin(`/admin/logs?request_id=${r.rid}`)).json()) as {
      data: Array<{ upstream_error: string | null }>;
    };
    expect(logs.data[0]?.upstream_error).toBe(words);
  });

  it('an upstream echoing our credential and its URL: our message to the client; the scrubbed echo for operators', async () => {
    const r = await call(t.h, t.token, 'POST', T2V, { prompt: 'leaky sim-fault:leak:400' });
    expect([r.status, r.body.code, r.body.message]).toEqual([
      400,
      1201,
      'The upstream refused a parameter of the request',
    ]);
    expect(JSON.stringify(r.body)).not.toMatch(/Credential|127\.0\.0\.1|eyJ/);
    const row = await requestLogRow(t.h, r.rid!);
    expect(row.upstream_error).toMatch(
      /^HTTP 400 1201: Request rejected\. Credential received: Bearer \[redacted-jwt\]; endpoint: http:\/\/127\.0\.0\.1:\d+\/v1\/videos\/text2video$/,
    );
    expect(row.upstream_error).not.toContain('eyJ');
  });

  it('an upstream 5xx: our words and code, the upstream status kept for operators', async () => {
    const r = await call(t.h, t.token, 'POST', T2V, { prompt: 'boom sim-fault:status:500' });
    expect([r.status, r.body.code, r.body.message]).toEqual([502, 5001, 'Upstream error']);
    expect((await requestLogRow(t.h, r.rid!)).upstream_error).toMatch(/^HTTP 500 5000: /);
  });

  it("a failed task's task_status_msg is ours; the upstream's reason is in the admin task view and the timeline", async () => {
    const c = await call<TaskData>(t.h, t.token, 'POST', T2V, { prompt: 'doomed sim-fault:fail-task' });
    const done = await waitStatus(t.h, t.token, `${T2V}/${c.body.data.task_id}`, 'failed');
    expect(done.task_status_msg).toBe('The upstream task failed');
    const admin = (await (await t.h.admin(`/admin/tasks/${c.body.data.task_id}`)).json()) as {
      error: { code: string; message: string; upstream_message?: string };
      events: Array<{ kind: string; detail: string | null }>;
    };
    expect(admin.error).toEqual({
      code: 'upstream_task_failed',
      message: 'The upstream task failed',
      upstream_message: 'Task failed: simulated generation failure',
    });
    expect(admin.events.find((e) => e.kind === 'failed')?.detail).toContain('simulated generation failure');
    // Logged once the task has failed (tasks/settle.ts): the client may read the failure first.
    await until(
      () =>
        t.h.logs.some(
          (l) =>
            l.includes('"task failed upstream"') &&
            l.includes(c.body.data.task_id) &&
            l.includes('simulated generation failure'),
        ),
      'the task-failed log line, with the upstream reason',
    );
  });
});

describe('family B (DashScope): upstream refusals in our words', () => {
  it('chat refused with a vendor message: our message, the vendor words in the request-log row', async () => {
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'sim-fault:leak:400' }] },
    });
    const rid = r.headers.get('x-gateway-request-id')!;
    const body = (await r.json()) as { error: { message: string; code: string } };
    expect([r.status, body.error.code]).toEqual([400, 'upstream_invalid_request']);
    expect(body.error.message).toBe(`The upstream refused a parameter of the request (request id: ${rid})`);
    expect((await requestLogRow(t.h, rid)).upstream_error).toMatch(
      /^HTTP 400 invalid_parameter_error: Request rejected\. Credential received: Bearer \[redacted\]/,
    );
  });
});
