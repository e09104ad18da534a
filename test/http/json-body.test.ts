// One JSON body parser for the text lane and Fastify's routes (src/http/json-body.ts): prototype poisoning and
// nesting too deep to serialise again are refused in each family's error shape, never a 500; the work a body and
// its echoes cost is bounded (members counted before parsing, echoed and upstream strings cut).
import { describe, expect, it } from 'vitest';
import { hasMoreMembersThan, nestsDeeperThan } from '../../src/json/json-text.ts';
import { MAX_ECHO, MAX_UPSTREAM_ID } from '../../src/errors/echo.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { MAX_JSON_DEPTH, MAX_JSON_MEMBERS, parseJsonBody } from '../../src/http/json-body.ts';
import { patchRow } from '../../src/store/repos/task-rows.ts';
import { expectB, RID, type AErr } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';

/** An array `depth` levels deep. */
const nested = (depth: number) => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

describe('parseJsonBody', () => {
  it('the direct parse only for bodies that cannot spell a poisoning key; escapes and a BOM take the checked parse', () => {
    expect(parseJsonBody('{"model":"m","messages":[{"role":"user","content":"a\\nb"}]}')).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'a\nb' }],
    });
    // "__proto__" spelt with \u escapes: JSON.parse alone would accept it.
    expect(() => parseJsonBody('{"\\u005f_pr\\u006fto__":{"x":1}}')).toThrow();
    expect(() => parseJsonBody('{"\\u0063onstructor":{"prototype":{"x":1}}}')).toThrow();
    expect(() => parseJsonBody('{"a":{"__proto__":{"x":1}}}')).toThrow();
    // The words inside values are fine, escaped text is fine.
    expect(parseJsonBody('{"content":"the constructor of proto\\u00e9"}')).toEqual({
      content: 'the constructor of protoé',
    });
    expect(parseJsonBody('\ufeff{"a":1}')).toEqual({ a: 1 });
    expect(() => parseJsonBody('{"a":')).toThrow(SyntaxError);
  });

  it(`nesting: ${MAX_JSON_DEPTH} levels are accepted, one more is refused`, () => {
    // The outer object is one level.
    expect(parseJsonBody(`{"x":${nested(MAX_JSON_DEPTH - 1)}}`)).toBeTypeOf('object');
    expect(() => parseJsonBody(`{"x":${nested(MAX_JSON_DEPTH)}}`)).toThrow(/more than 256 levels/);
    expect(() => parseJsonBody(`[${'{"a":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}]`)).toThrow(/levels/);
  });
});

describe('nestsDeeperThan', () => {
  it('counts only brackets outside strings, escaped quotes included', () => {
    const brackets = '[{'.repeat(50);
    // 300 brackets inside strings (one after an escaped quote), nesting 2.
    expect(nestsDeeperThan(`{"a":"${brackets}","b":["\\"${brackets}\\\\"]}`, 2)).toBe(false);
    expect(nestsDeeperThan(`{"a":"${brackets}","b":[[1]]}`, 2)).toBe(true);
    // Many brackets side by side, none deep.
    expect(nestsDeeperThan(`[${'[1],'.repeat(500)}[1]]`, 2)).toBe(false);
    expect(nestsDeeperThan(nested(3), 2)).toBe(true);
    expect(nestsDeeperThan(nested(2), 2)).toBe(false);
  });
});

describe('a body nested 10,000 levels deep, through the server', () => {
  const t = useHarness();
  const deep = nested(10_000);
  const post = (path: string, text: string) =>
    t.h.fetch(path, { method: 'POST', token: t.token, headers: { 'content-type': 'application/json' }, body: text });

  it('text lane (chat, also with a repeated key): 400 invalid_request in the family B shape, nothing sent upstream', async () => {
    const before = t.h.sim.requestsTo('/chat/completions').length;
    for (const text of [
      `{"model":"qwx3.7-plus","messages":[{"role":"user","content":"x"}],"x":${deep}}`,
      `{"model":"qwx3.7-plus","user":"a","user":"b","messages":[{"role":"user","content":"x"}],"x":${deep}}`,
    ]) {
      const body = await expectB(await post('/v1/chat/completions', text), 400, 'invalid_request');
      expect(body.error.message).toContain('levels deep');
    }
    expect(t.h.sim.requestsTo('/chat/completions').length).toBe(before);
  });

  it('a framework route (images): 400 invalid_request in the family B shape', async () => {
    await expectB(
      await post('/v1/images/generations', `{"model":"qwx-image","prompt":"p","x":${deep}}`),
      400,
      'invalid_request',
    );
  });

  it('family A: 400 with the vendor envelope and the request id', async () => {
    const r = await post('/vidx/v1/videos/text2video', `{"model_name":"vidx-v2-6","prompt":"p","x":${deep}}`);
    expect(r.status).toBe(400);
    const body = (await r.json()) as AErr;
    expect(body.code).toBe(1201);
    expect(body.request_id).toMatch(RID);
    expect(body.message).toContain('levels deep');
    expect(body.data).toBeNull();
  });
});

describe('bounded work per body, through the server', () => {
  const t = useHarness();
  const post = (path: string, text: string) =>
    t.h.fetch(path, { method: 'POST', token: t.token, headers: { 'content-type': 'application/json' }, body: text });
  /** One object of n keys. */
  const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`;

  it(`an object of more than ${MAX_JSON_MEMBERS} keys is refused unparsed (400, nothing sent upstream); colons in strings do not count`, async () => {
    expect(hasMoreMembersThan(`{"a":"${':'.repeat(10)}"}`, 1)).toBe(false);
    expect(hasMoreMembersThan('{"a":1,"b":2}', 1)).toBe(true);
    // The shortest texts over each bound (empty keys, one-digit values; one bracket per level) are still caught: a
    // text is settled by its length alone only when it is too short to hold more.
    for (let max = 1; max <= 6; max++) {
      expect(hasMoreMembersThan(`{${Array.from({ length: max + 1 }, () => '"":0').join(',')}}`, max)).toBe(true);
      expect(hasMoreMembersThan(`{${Array.from({ length: max }, () => '"":0').join(',')}}`, max)).toBe(false);
      expect(nestsDeeperThan(`${'['.repeat(max + 1)}${']'.repeat(max + 1)}`, max)).toBe(true);
      expect(nestsDeeperThan(`${'['.repeat(max)}${']'.repeat(max)}`, max)).toBe(false);
    }
    const before = t.h.sim.requestsTo('/chat/completions').length;
    const body = await expectB(
      await post(
        '/v1/chat/completions',
        `{"model":"qwx3.7-plus","messages":[{"role":"user","content":"x"}],"metadata":${keys(MAX_JSON_MEMBERS + 1)}}`,
      ),
      400,
      'invalid_request',
    );
    expect(body.error.message).toContain(`more than ${MAX_JSON_MEMBERS} object members`);
    await expectB(
      await post('/v1/images/generations', `{"model":"qwx-image","prompt":"p","x":${keys(MAX_JSON_MEMBERS)}}`),
      400,
      'invalid_request',
    );
    expect(t.h.sim.requestsTo('/chat/completions').length).toBe(before);
  });

  it(`an unknown model name of 1 MiB is echoed cut to ${MAX_ECHO} characters`, async () => {
    const name = 'm'.repeat(1024 * 1024);
    const body = await expectB(
      await post('/v1/chat/completions', JSON.stringify({ model: name, messages: [{ role: 'user', content: 'x' }] })),
      404,
      'model_not_found',
    );
    expect(body.error.message).toContain(`'${'m'.repeat(MAX_ECHO)}…'`);
    expect(body.error.message.length).toBeLessThan(MAX_ECHO + 200);
  });
});

describe('upstream request ids are kept to a bound', () => {
  it(`a 100 KB id on an error and on a task's row is cut to ${MAX_UPSTREAM_ID} characters`, () => {
    const id = 'r'.repeat(100_000);
    expect(new GatewayError('upstream_error', 'x', { upstreamRequestId: id }).upstreamRequestId).toBe(
      'r'.repeat(MAX_UPSTREAM_ID),
    );
    expect(patchRow({ upstreamRequestId: id }, 1).upstream_request_id).toBe('r'.repeat(MAX_UPSTREAM_ID));
  });
});
