// Values that reach the database from outside: PostgreSQL refuses a NUL in text and a value longer than its
// varchar column (SQLite accepts both), so they are refused at the door or cut to length — never a 500, and never a
// row that holds a group commit back. Also: the matched route, not the raw URL, decides authentication and family.
import { describe, expect, it } from 'vitest';
import { type BErr, expectA, expectB } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness();

describe('NUL characters', () => {
  it('in the URL (path or query): 400 invalid_request in the family shape', async () => {
    await expectB(await t.h.fetch('/v1/videos/a%00b', { token: t.token }), 400, 'invalid_request');
    await expectB(await t.h.fetch('/v1/videos?after=a%00b', { token: t.token }), 400, 'invalid_request');
    await expectA(await t.h.fetch('/vidx/v1/videos/text2video/a%00b', { token: t.token }), 400, 1201);
    const admin = await t.h.admin('/admin/tokens/a%00b');
    expect(admin.status).toBe(400);
  });

  it('in a JSON body string or key: 400 invalid_request; an escaped backslash before "u0000" is ordinary text', async () => {
    const named = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'a\u0000b' } });
    expect(named.status).toBe(400);
    expect(((await named.json()) as BErr).error.code).toBe('invalid_request');
    await expectB(
      await t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: t.token,
        json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'x\u0000' }] },
      }),
      400,
      'invalid_request',
    );
    await expectA(
      await t.h.fetch('/vidx/v1/videos/text2video', {
        method: 'POST',
        token: t.token,
        json: { model_name: 'vidx-v2-6', prompt: 'p', external_task_id: 'a\u0000b' },
      }),
      400,
      1201,
    );
    const keyed = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      headers: { 'content-type': 'application/json' },
      body: '{"model":"qwx3.7-plus","messages":[{"role":"user","content":"x"}],"metadata":{"a\\u0000":"b"}}',
    });
    await expectB(keyed, 400, 'invalid_request');
    const literal = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'the text \\u0000 is six characters' }] },
    });
    expect(literal.status).toBe(200);
    const named2 = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'back\\u0000slash' } });
    expect(named2.status).toBe(201);
  });

  it('in a multipart field: 400 invalid_parameter', async () => {
    const form = new FormData();
    form.append('model', 'wnx2.7-t2v');
    form.append('prompt', 'a\u0000b');
    await expectB(
      await t.h.fetch('/v1/videos', { method: 'POST', token: t.token, body: form }),
      400,
      'invalid_parameter',
    );
  });
});

describe('values longer than their column', () => {
  it('an unknown 500-character path is logged cut to 200, and the rows after it still commit', async () => {
    const long = `/v1/${'x'.repeat(500)}`;
    const miss = await t.h.fetch(long, { token: t.token });
    await expectB(miss, 404, 'not_found');
    const missId = miss.headers.get('x-gateway-request-id')!;
    const ok = await t.h.fetch('/v1/models', { token: t.token });
    expect(ok.status).toBe(200);
    const okId = ok.headers.get('x-gateway-request-id')!;
    await t.h.gw.deps.requestLog.flush();
    const rows = await t.h.store.db
      .selectFrom('request_log')
      .select(['request_id', 'endpoint'])
      .where('request_id', 'in', [missId, okId])
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.request_id === missId)!.endpoint).toBe(long.slice(0, 200));
  });
});

describe('percent-encoded route prefixes', () => {
  it('the router decodes /%761/models to /v1/models: it is authenticated as that route', async () => {
    expect((await t.h.fetch('/%761/models', { token: t.token })).status).toBe(200);
    await expectB(await t.h.fetch('/%761/models'), 401, 'missing_token');
  });

  it('a family A route reached through an encoded prefix answers in the family A envelope', async () => {
    await expectA(
      await t.h.fetch('/%76idx/v1/videos/text2video/task_nope', { token: t.token }),
      404,
      ((await (await t.h.fetch('/vidx/v1/videos/text2video/task_nope', { token: t.token })).json()) as { code: number })
        .code,
    );
  });
});
