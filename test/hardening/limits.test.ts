// Body limits per endpoint class (control / text / media / upload) and graceful shutdown: a stream in
// flight when the gateway starts closing runs to its end (and is charged once); a request arriving after
// that is refused with 503 in the family shape, and once the listener is closed no connection is accepted.
import { Client } from 'undici';
import { describe, expect, it } from 'vitest';
import { CONTROL_LIMIT, TEXT_LIMIT } from '../../src/http/front/body-limits.ts';
import { bodyClassOf } from '../../src/http/front/route-table.ts';
import { expectFamilyAError, expectFamilyBError } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';
import { ledgerOfRequest } from '../support/store-rows.ts';

const MB = 1024 * 1024;

describe('per-endpoint body limits', () => {
  const t = useHarness({ env: { TOLLWAY_BODY_LIMIT: String(4 * MB), TOLLWAY_UPLOAD_BODY_LIMIT: String(8 * MB) } });

  const postRaw = async (
    path: string,
    body: string | FormData,
    headers: Record<string, string> = {},
    auth = t.token,
  ) => {
    const r = await t.h.fetch(path, { method: 'POST', token: auth, body, headers });
    return { status: r.status, rid: r.headers.get('x-gateway-request-id'), text: await r.text() };
  };
  const json = (o: unknown) => JSON.stringify(o);
  const pad = (n: number) => 'x'.repeat(n);

  it('classifies the contract paths', () => {
    expect(bodyClassOf('/v1/chat/completions')).toBe('chat');
    expect(bodyClassOf('/v1/embeddings')).toBe('text');
    expect(bodyClassOf('/v1/images/edits')).toBe('upload');
    expect(bodyClassOf('/v1/videos')).toBe('upload');
    expect(bodyClassOf('/vidx/v1/videos/text2video')).toBe('media');
    expect(bodyClassOf('/vidx/v1/videos/multi-elements/add-selection')).toBe('control');
    expect(bodyClassOf('/admin/tokens')).toBe('control');
  });

  it('control calls (family A selection, admin): 256 KiB', async () => {
    const ct = { 'content-type': 'application/json' };
    const small = await postRaw(
      '/vidx/v1/videos/multi-elements/add-selection',
      json({ session_id: 'sess_x', frame_index: 0, points: [{ x: 0.5, y: 0.5 }], pad: pad(CONTROL_LIMIT - 1024) }),
      ct,
    );
    expect(small.status).not.toBe(413);
    const big = await postRaw(
      '/vidx/v1/videos/multi-elements/add-selection',
      json({ session_id: 'sess_x', pad: pad(CONTROL_LIMIT + 1024) }),
      ct,
    );
    expect(big.status).toBe(413);
    expectFamilyAError(big.text, big.rid, 1200);
    const admin = await postRaw('/admin/tokens', json({ name: pad(CONTROL_LIMIT + 1024) }), ct, t.h.adminKey);
    expect(admin.status).toBe(413);
  });

  it('embeddings: 2 MiB', async () => {
    const ct = { 'content-type': 'application/json' };
    const ok = await postRaw('/v1/embeddings', json({ model: 'text-embedding-v4', input: pad(TEXT_LIMIT - 4096) }), ct);
    expect(ok.status).not.toBe(413);
    const big = await postRaw(
      '/v1/embeddings',
      json({ model: 'text-embedding-v4', input: pad(TEXT_LIMIT + 4096) }),
      ct,
    );
    expect(big.status).toBe(413);
    expectFamilyBError(big.text, big.rid, 'payload_too_large');
  });

  it('chat and family A creation (inline media allowed): TOLLWAY_BODY_LIMIT', async () => {
    const ct = { 'content-type': 'application/json' };
    const ok = await postRaw(
      '/v1/chat/completions',
      json({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: pad(3 * MB) }] }),
      ct,
    );
    expect(ok.status).toBe(200);
    const big = await postRaw(
      '/v1/chat/completions',
      json({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: pad(5 * MB) }] }),
      ct,
    );
    expect(big.status).toBe(413);
    expectFamilyBError(big.text, big.rid, 'payload_too_large');
    expect(await ledgerOfRequest(t.h, big.rid!)).toHaveLength(0);
    const a = await postRaw('/vidx/v1/videos/text2video', json({ prompt: 'x', pad: pad(5 * MB) }), ct);
    expect(a.status).toBe(413);
    expectFamilyAError(a.text, a.rid, 1200);
  });

  it('uploads (image edits, video creation): TOLLWAY_UPLOAD_BODY_LIMIT, the whole multipart body counted', async () => {
    const png = (n: number) => new Blob([Buffer.alloc(n, 1)], { type: 'image/png' });
    // Above the JSON limit but within the upload limit: not refused for its size.
    const within = new FormData();
    within.append('model', 'qwx-image-edit-plus');
    within.append('prompt', 'x');
    within.append('image', png(6 * MB), 'a.png');
    expect((await postRaw('/v1/images/edits', within)).status).not.toBe(413);
    // Two files, each far under the per-file limit, together over the upload limit.
    const over = new FormData();
    over.append('model', 'qwx-image-edit-plus');
    over.append('prompt', 'x');
    over.append('image[]', png(5 * MB), 'a.png');
    over.append('image[]', png(5 * MB), 'b.png');
    const r = await postRaw('/v1/images/edits', over);
    expect(r.status).toBe(413);
    expectFamilyBError(r.text, r.rid, 'payload_too_large');
    const v = await postRaw('/v1/videos', json({ model: 'wnx2.7-t2v', prompt: pad(9 * MB) }), {
      'content-type': 'application/json',
    });
    expect(v.status).toBe(413);
    const vOk = await postRaw('/v1/videos', json({ model: 'wnx2.7-t2v', prompt: 'x', pad: pad(5 * MB) }), {
      'content-type': 'application/json',
    });
    expect(vOk.status).not.toBe(413);
  });
});

describe('graceful shutdown', () => {
  const t = useHarness();

  it('a stream in flight finishes and is charged once; a request after close begins gets 503 (family shape, Retry-After); new connections are not accepted', async () => {
    const client = new Client(t.h.url, { pipelining: 2 });
    const headers = { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' };
    const stream = await client.request({
      method: 'POST',
      path: '/v1/chat/completions',
      headers,
      body: JSON.stringify({
        model: 'qwx3.7-plus',
        stream: true,
        messages: [{ role: 'user', content: 'drain me sim-fault:trickle:80' }],
      }),
    });
    const rid = String(stream.headers['x-gateway-request-id']);
    const it = stream.body[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);

    const closing = t.h.gw.app.close();
    // Queued behind the stream on the same connection: the server sees it only after close began.
    const late = client.request({
      method: 'POST',
      path: '/v1/chat/completions',
      headers,
      body: JSON.stringify({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'late' }] }),
    });
    let text = Buffer.from(first.value as Buffer).toString('utf8');
    for (let n = await it.next(); !n.done; n = await it.next()) text += Buffer.from(n.value as Buffer).toString('utf8');
    expect(stream.statusCode).toBe(200);
    expect(text).toContain('[DONE]');
    expect(text).not.toMatch(/"error"/);

    // Pipelined behind the stream: parsed by the server only after close began → our 503, in the family shape.
    const lateRes = await late;
    const lateRid = String(lateRes.headers['x-gateway-request-id']);
    expect(lateRes.statusCode).toBe(503);
    expect(lateRes.headers['retry-after']).toBe('1');
    expectFamilyBError(await lateRes.body.text(), lateRid, 'service_unavailable');
    // A brand-new connection after close is not accepted.
    await closing;
    await expect(fetch(`${t.h.url}/v1/models`, { headers: { authorization: `Bearer ${t.token}` } })).rejects.toThrow();
    await client.close().catch(() => undefined);
    expect(await ledgerOfRequest(t.h, rid)).toHaveLength(1);
  });
});
