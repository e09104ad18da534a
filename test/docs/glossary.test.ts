// docs/api.md#words-and-formats names every field of the money answers once: each property the OpenAPI document
// gives GET /v1/usage and GET /admin/bills (nested ones too) appears there as `name`, so a new or renamed field
// cannot ship without its word.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describedPaths } from '../../src/http/openapi/document.ts';

type Schema = {
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  additionalProperties?: Schema | boolean;
};

/** Every property name in `s`, at any depth. */
function names(s: Schema | undefined, out = new Set<string>()): Set<string> {
  if (!s || typeof s !== 'object') return out;
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    out.add(k);
    names(v, out);
  }
  for (const sub of [s.items, ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) names(sub, out);
  if (typeof s.additionalProperties === 'object') names(s.additionalProperties, out);
  return out;
}

function glossary(): string {
  const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const start = doc.indexOf('## Words and formats');
  expect(start).toBeGreaterThan(-1);
  return doc.slice(start, doc.indexOf('\n## ', start + 1));
}

describe('docs/api.md glossary', () => {
  const paths = describedPaths();
  const answer = (path: string) => {
    const ok = (paths[path]!.get as { responses: Record<string, { content: Record<string, { schema: Schema }> }> })
      .responses['200']!;
    return ok.content['application/json']!.schema;
  };

  it.each(['/v1/usage', '/admin/bills'])('names every field of %s', (path) => {
    const fields = [...names(answer(path))];
    expect(fields.length).toBeGreaterThan(10);
    const text = glossary();
    expect(fields.filter((f) => !text.includes(`\`${f}\``))).toEqual([]);
  });

  it('names each deprecated name beside the one that replaces it', () => {
    const text = glossary();
    for (const [old, now] of [
      ['used', 'spent'],
      ['reserved', 'held'],
      ['requests', 'entries'],
      ['from', 'since'],
    ])
      expect(text).toMatch(new RegExp(`\\|[^\\n]*\`${old}\`[^\\n]*\\|[^\\n]*\`${now}\``));
  });
});
