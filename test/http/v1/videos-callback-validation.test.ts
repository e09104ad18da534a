// callback_url on POST /v1/videos follows family A's rules (an absolute http(s) URL without credentials; no literal
// private or loopback address nor local name unless the operator allows private networks): a bad one is refused
// before any hold or upstream call, in the /v1 error shape with the request id, naming the field.
import { describe, expect, it } from 'vitest';
import { type BErr, RID } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { tokenRow } from '../../support/store-rows.ts';
import { FAST_TASK_ENV } from '../../support/videos.ts';

const t = useHarness({ env: FAST_TASK_ENV });

describe('POST /v1/videos callback_url validation', () => {
  it.each([
    ['http://127.0.0.1:9/hook', 'loopback address'],
    ['http://10.1.2.3/hook', 'private address'],
    ['http://hooks.localhost/x', 'local host name'],
    ['https://user:pw@hooks.example.com/x', 'must not contain credentials'],
    ['ftp://hooks.example.com/x', 'must use http or https'],
    ['not a url', 'absolute http(s) URL'],
    [42, 'must be a string'],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, 'at most 2048 characters'],
  ])('%s is refused before any hold', async (callback_url, message) => {
    const tok = await t.h.token({ name: 'bad-callback' });
    const before = t.h.sim.requestsTo('video-synthesis').length;
    const r = await t.h.fetch('/v1/videos', {
      method: 'POST',
      token: tok.secret,
      json: { model: 'wnx2.7-t2v', prompt: 'x', seconds: 2, callback_url },
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as BErr;
    expect([body.error.code, body.error.param]).toEqual(['invalid_parameter', 'callback_url']);
    expect(body.error.message).toContain(message);
    expect(body.error.request_id).toMatch(RID);
    expect(body.error.request_id).toBe(r.headers.get('x-gateway-request-id'));
    expect(t.h.sim.requestsTo('video-synthesis')).toHaveLength(before);
    expect(Number((await tokenRow(t.h, tok.id)).held)).toBe(0);
    expect(await t.h.store.db.selectFrom('tasks').selectAll().where('token_id', '=', tok.id).execute()).toEqual([]);
  });

  it('a public callback_url is kept with the task (and never shown back)', async () => {
    const r = await t.h.fetch('/v1/videos', {
      method: 'POST',
      token: t.token,
      json: { model: 'wnx2.7-t2v', prompt: 'x', seconds: 2, callback_url: 'https://hooks.example.com/videos' },
    });
    expect(r.status).toBe(200);
    const v = (await r.json()) as { id: string };
    expect(JSON.stringify(v)).not.toContain('hooks.example.com');
    expect((await t.h.gw.deps.tasks.repo.get(v.id))?.callbackUrl).toBe('https://hooks.example.com/videos');
  });
});
