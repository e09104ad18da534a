// An upstream is declared once, in its folder: the channel kinds, the admin API's key fields in the OpenAPI document
// and the default result hosts all come from the list of upstreams (adapters/upstreams.ts), none written out again.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNEL_KINDS, UPSTREAMS } from '../../src/adapters/upstreams.ts';
import { declarationOf } from '../../src/adapters/upstream-kinds.ts';
import { DEFAULT_RESULT_HOSTS } from '../../src/config/upstream-env.ts';
import { channelView } from '../../src/http/openapi/admin-schemas-channels.ts';
import { channelPatchBody } from '../../src/core/admin/bodies/channels.ts';
import { describedPaths } from '../../src/http/openapi/document.ts';
import type { Schema } from '../../src/http/openapi/schema.ts';

const kinds = UPSTREAMS.map((u) => u.kind);
const keyFields = UPSTREAMS.flatMap((u) => u.keyFields.map((f) => f.field));
const props = (s: Schema): Record<string, Schema> => (s as { properties: Record<string, Schema> }).properties;

describe('the list of upstreams', () => {
  it('gives the channel kinds, one per upstream', () => {
    expect(CHANNEL_KINDS).toEqual(kinds);
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it("carries each upstream's declaration (the data routing and the catalogue read) as declared in its folder", () => {
    for (const u of UPSTREAMS) {
      const d = declarationOf(u.kind);
      for (const k of Object.keys(d) as Array<keyof typeof d>) expect(u[k]).toEqual(d[k]);
    }
  });

  it("gives the OpenAPI document's channel kind enums and key fields", () => {
    expect(props(channelView).kind).toEqual({ type: 'string', enum: kinds });
    expect(Object.keys(props(props(channelView).keys!))).toEqual(keyFields);
    const patch = Object.keys(props(channelPatchBody.schema as Schema));
    for (const f of keyFields) expect(patch).toContain(f);
    const post = describedPaths()['/admin/channels']!.post as unknown as {
      requestBody: { content: Record<string, { schema: Schema }> };
    };
    const body = props(post.requestBody.content['application/json']!.schema);
    expect((body.kind as { anyOf: Array<{ const: string }> }).anyOf.map((b) => b.const)).toEqual(kinds);
    for (const f of keyFields) expect(Object.keys(body)).toContain(f);
  });

  it("gives the default result hosts: each upstream's own, from its folder", () => {
    expect(DEFAULT_RESULT_HOSTS).toEqual(UPSTREAMS.flatMap((u) => u.resultHosts));
    for (const u of UPSTREAMS) expect(u.resultHosts.length).toBeGreaterThan(0);
  });

  it("names each upstream's account by one of its own key fields", () => {
    for (const u of UPSTREAMS) expect(u.keyFields.map((f) => f.key)).toContain(u.accountKey);
  });
});

/**
 * Modules outside adapters/ that may name an upstream's kind in code: data and wiring bound to one upstream by the
 * product (the default catalogue, demo channels, the vendor-style family's own endpoint rule), and the catalogue
 * source's upstream check (the pricing room's, to take CHANNEL_KINDS).
 */
const NAMING_ALLOWED = ['catalogue/default-catalogue.ts', 'main.ts', 'core/vidx/create.ts', 'catalogue-source.ts'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('a generic module', () => {
  it('never branches on an upstream by name: no string of an upstream kind in code outside adapters/', () => {
    const src = join(import.meta.dirname, '..', '..', 'src');
    const named = new RegExp(`['"\`](${kinds.join('|')})['"\`]`);
    const found: string[] = [];
    for (const file of sources(src)) {
      const rel = relative(src, file);
      if (rel.startsWith('adapters/') || NAMING_ALLOWED.some((a) => rel.endsWith(a))) continue;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const code = line.trim();
        if (!code.startsWith('//') && !code.startsWith('*') && named.test(code)) found.push(`${rel}: ${code}`);
      }
    }
    expect(found).toEqual([]);
  });
});
