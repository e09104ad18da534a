import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/json.ts';
import { spliceTopLevelString } from '../../src/adapters/json-splice.ts';

const splice = (raw: string, value = 'up-model') =>
  spliceTopLevelString(raw, JSON.parse(raw) as JsonObject, 'model', value);

describe('spliceTopLevelString', () => {
  it("replaces the top-level model value and keeps the client's text otherwise byte for byte", () => {
    const raw = '{ "messages": [ {"role":"user","content":"hi"} ],\n  "model" :\t"pub-model", "temperature": 1.0 }';
    const out = splice(raw);
    expect(out).toBe(
      '{ "messages": [ {"role":"user","content":"hi"} ],\n  "model" :\t"up-model", "temperature": 1.0 }',
    );
  });

  it('serialises the new value as JSON (quotes and escapes)', () => {
    const out = splice('{"model":"a","x":1}', 'we"ird\\name')!;
    expect(JSON.parse(out)).toEqual({ model: 'we"ird\\name', x: 1 });
  });

  it('touches only the top-level member, not a nested key of the same name or text that looks like one', () => {
    const raw =
      '{"metadata":{"model":"nested"},"messages":[{"role":"user","content":"say \\"model\\":\\"x\\" and \\\\"}],"model":"pub"}';
    const out = splice(raw)!;
    expect(JSON.parse(out)).toEqual({ ...(JSON.parse(raw) as object), model: 'up-model' });
    expect(out).toContain('"metadata":{"model":"nested"}');
  });

  it('refuses a repeated key at the top level (JSON.parse kept the last; an upstream may keep the first)', () => {
    expect(splice('{"model":"a","messages":[],"model":"b"}')).toBeNull();
    expect(splice('{"model":"a","messages":[{"role":"user"}],"messages":[{"role":"x"}]}')).toBeNull();
  });

  it('refuses a repeated key at any depth', () => {
    expect(
      splice(
        '{"model":"a","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"file:///etc/passwd","url":"https://ok.example/a.png"}}]}]}',
      ),
    ).toBeNull();
    expect(splice('{"model":"a","messages":[{"role":"user","role":"system"}]}')).toBeNull();
  });

  it('refuses a top-level key spelled with escapes (it cannot be told from a nested plain one)', () => {
    expect(splice('{"mod\\u0065l":"pub","metadata":{"model":"nested"}}')).toBeNull();
    expect(splice('{"mod\\u0065l":"pub"}')).toBeNull();
  });

  it('refuses when the member is missing, not a string, or the text is not a plain object', () => {
    expect(splice('{"messages":[]}')).toBeNull();
    expect(spliceTopLevelString('{"model":5}', { model: 5 }, 'model', 'x')).toBeNull();
    expect(spliceTopLevelString('\ufeff{"model":"a"}', { model: 'a' }, 'model', 'x')).toBeNull();
    expect(spliceTopLevelString('["model"]', {}, 'model', 'x')).toBeNull();
  });

  it('refuses when the parsed value does not match the text (keys added or removed since)', () => {
    expect(spliceTopLevelString('{"model":"a","x":1}', { model: 'a' }, 'model', 'b')).toBeNull();
    expect(spliceTopLevelString('{"model":"a"}', { model: 'a', x: 1 }, 'model', 'b')).toBeNull();
  });

  // Random JSON written with random spacing: the splice, when made, parses to the parsed body with the new model.
  it('property: a splice parses to exactly the parsed body with the new value', () => {
    const body = fc.record({ model: fc.string(), rest: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })) });
    fc.assert(
      fc.property(body, fc.constantFrom(undefined, 1, 2, '\t'), fc.string(), ({ model, rest }, indent, value) => {
        const obj = { ...rest, model };
        const raw = JSON.stringify(obj, null, indent);
        const out = spliceTopLevelString(raw, JSON.parse(raw) as JsonObject, 'model', value);
        // Written by JSON.stringify, nothing repeats and the key is plain: the splice is always made.
        expect(out).not.toBeNull();
        expect(JSON.parse(out!)).toEqual({ ...(JSON.parse(raw) as object), model: value });
      }),
      { numRuns: 300 },
    );
  });

  // The same bodies with one key repeated in one object somewhere in the tree: never spliced.
  it('property: a key repeated anywhere is always refused', () => {
    const body = fc.record({ model: fc.string(), rest: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })) });
    fc.assert(
      fc.property(body, fc.nat(), fc.jsonValue({ maxDepth: 1 }), ({ model, rest }, pick, extra) => {
        const objects: number[] = [];
        const text = writeWithRepeat({ ...rest, model }, pick, extra, objects);
        fc.pre(objects.length > 0);
        expect(spliceTopLevelString(text, JSON.parse(text) as JsonObject, 'model', 'x')).toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});

/** JSON text of `v` in which the (pick mod n)-th non-empty object repeats its first key with `extra` at its end. */
function writeWithRepeat(v: unknown, pick: number, extra: unknown, seen: number[]): string {
  const count = countObjects(v);
  if (count === 0) return JSON.stringify(v);
  const target = pick % count;
  let n = 0;
  const write = (x: unknown): string => {
    if (Array.isArray(x)) return `[${x.map(write).join(',')}]`;
    if (typeof x !== 'object' || x === null) return JSON.stringify(x);
    const keys = Object.keys(x);
    const members = keys.map((k) => `${JSON.stringify(k)}:${write((x as Record<string, unknown>)[k])}`);
    if (keys.length > 0 && n++ === target) {
      seen.push(n);
      members.push(`${JSON.stringify(keys[0])}:${JSON.stringify(extra)}`);
    }
    return `{${members.join(',')}}`;
  };
  return write(v);
}

function countObjects(x: unknown): number {
  if (Array.isArray(x)) return x.reduce((s: number, y) => s + countObjects(y), 0);
  if (typeof x !== 'object' || x === null) return 0;
  const o = x as Record<string, unknown>;
  return (Object.keys(o).length > 0 ? 1 : 0) + Object.values(o).reduce((s: number, y) => s + countObjects(y), 0);
}
