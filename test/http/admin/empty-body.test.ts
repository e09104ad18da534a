// An admin action sent with `Content-Type: application/json` and an empty body (as many HTTP clients send a POST
// without data): the body is absent, so an action whose body is all optional takes its defaults, and one that
// needs a body says so. Malformed JSON stays 400 invalid_json, and the API families keep refusing an empty body.
import { describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();
const EMPTY = { body: '', headers: { 'content-type': 'application/json' } };

describe('admin POST with Content-Type: application/json and an empty body', () => {
  it('rotate takes its defaults: a new secret, the old one refused at once', async () => {
    const tok = await t.h.token({ name: 'empty-rotate' });
    const r = await t.h.admin(`/admin/tokens/${tok.id}/rotate`, { method: 'POST', ...EMPTY });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { id: string; token: string };
    expect(body.id).toBe(tok.id);
    expect(body.token).not.toBe(tok.secret);
    expect((await t.h.fetch('/v1/models', { token: tok.secret })).status).toBe(401);
    expect((await t.h.fetch('/v1/models', { token: body.token })).status).toBe(200);
  });

  it('actions with no body at all (channel disable/enable, task cancel) accept it', async () => {
    const channels = (await (await t.h.admin('/admin/channels')).json()) as { data: Array<{ id: string }> };
    const id = channels.data[0]!.id;
    const off = await t.h.admin(`/admin/channels/${id}/disable`, { method: 'POST', ...EMPTY });
    expect(off.status).toBe(200);
    expect(((await off.json()) as { status: string }).status).toBe('disabled');
    const on = await t.h.admin(`/admin/channels/${id}/enable`, { method: 'POST', ...EMPTY });
    expect(on.status).toBe(200);
    expect(((await on.json()) as { status: string }).status).toBe('enabled');
    // An unknown task is a 404 about the task, not a complaint about the body.
    await expectB(
      await t.h.admin('/admin/tasks/task_nope/cancel', { method: 'POST', ...EMPTY }),
      404,
      'task_not_found',
    );
  });

  it('an action that needs a body says so; malformed JSON is still invalid_json', async () => {
    const tok = await t.h.token({ name: 'empty-needs-body' });
    const create = await expectB(
      await t.h.admin('/admin/tokens', { method: 'POST', ...EMPTY }),
      400,
      'invalid_request',
    );
    expect(create.error.message).toMatch(/JSON object/);
    await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}/topup`, { method: 'POST', ...EMPTY }),
      400,
      'invalid_request',
    );
    await expectB(await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', ...EMPTY }), 400, 'invalid_request');
    await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}/rotate`, {
        method: 'POST',
        body: '{',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_json',
    );
    expect((await t.h.fetch('/v1/models', { token: tok.secret })).status).toBe(200);
  });

  it('the API families still refuse an empty JSON body as invalid JSON', async () => {
    await expectB(
      await t.h.fetch('/v1/images/generations', { method: 'POST', token: t.token, ...EMPTY }),
      400,
      'invalid_json',
    );
  });
});
