// readMultipart over a real socket: a body must end with its closing boundary, wherever the chunks are cut.
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors/gateway-error.ts';
import { readMultipart, registerMultipart } from '../../src/http/multipart.ts';

let app: FastifyInstance;
let port = 0;

beforeAll(async () => {
  app = Fastify();
  await app.register(async (s) => {
    await registerMultipart(s);
    s.post('/form', async (req) => {
      try {
        return { ok: await readMultipart(req) };
      } catch (e) {
        return { refused: isGatewayError(e) ? e.code : String(e) };
      }
    });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(() => app.close());

/** POST `body` in chunks of `size` bytes, each written on its own turn (so the server reads them apart). */
function post(body: Buffer, size: number, boundary = 'zz'): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        port,
        path: '/form',
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
      },
    );
    req.on('error', reject);
    let at = 0;
    const next = () => {
      if (at >= body.length) return void req.end();
      req.write(body.subarray(at, at + size));
      at += size;
      setImmediate(next);
    };
    next();
  });
}

const field = (name: string, value: string) =>
  `--zz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const CLOSED = Buffer.from(`${field('model', 'wnx2.7-t2v')}${field('resolution', '720p')}--zz--\r\n`);

describe('readMultipart: the closing boundary', () => {
  it.each([1, 2, 5, 7, 64, 4096])('a closed form is read whole, in chunks of %i bytes', async (size) => {
    expect(await post(CLOSED, size)).toEqual({
      ok: { fields: { model: 'wnx2.7-t2v', resolution: '720p' }, files: [] },
    });
  });

  it.each([1, 3, 64])(
    'a form cut before its closing boundary is refused, not read without its last field (chunks of %i)',
    async (size) => {
      for (const cut of [
        `${field('model', 'wnx2.7-t2v')}--zz\r\nContent-Disposition: form-data; name="resolution"\r\n\r\n720p`,
        `${field('model', 'wnx2.7-t2v')}${field('resolution', '720p')}`,
        `${field('model', 'wnx2.7-t2v')}--zz\r\n`,
      ]) {
        expect(await post(Buffer.from(cut), size)).toEqual({ refused: 'invalid_request' });
      }
    },
  );

  it('text that only resembles the delimiter inside a value does not count as closing the form', async () => {
    const body = Buffer.from(
      `${field('prompt', 'a--zz-- b')}--zz\r\nContent-Disposition: form-data; name="n"\r\n\r\n2`,
    );
    expect(await post(body, 3)).toEqual({ refused: 'invalid_request' });
  });

  it('a file part and an epilogue after the closing boundary are fine', async () => {
    const file = Buffer.alloc(70_000, 7);
    const body = Buffer.concat([
      Buffer.from(
        `${field('model', 'm')}--zz\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      file,
      Buffer.from('\r\n--zz--\r\nepilogue text'),
    ]);
    const r = (await post(body, 1000)) as {
      ok: { fields: Record<string, string>; files: Array<{ data: { data: number[] } }> };
    };
    expect(r.ok.fields).toEqual({ model: 'm' });
    expect(r.ok.files).toHaveLength(1);
    expect(r.ok.files[0]!.data.data).toHaveLength(70_000);
  });

  it('a quoted boundary parameter is honoured', async () => {
    const body = Buffer.from(`--a b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--a b--`);
    expect(await post(body, 4, '"a b"')).toEqual({ ok: { fields: { x: '1' }, files: [] } });
    expect(await post(body.subarray(0, body.length - 2), 4, '"a b"')).toEqual({ refused: 'invalid_request' });
  });
});
