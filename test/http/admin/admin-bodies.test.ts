// Through HTTP, for every admin body with a shared schema (src/http/openapi/admin-bodies.ts): a body the schema
// refuses gets 400 in the admin error shape, naming the field, for each of its fields (never a 500), and an unknown
// field is refused where the schema says so.
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ADMIN_BODIES } from '../../../src/http/openapi/admin-bodies.ts';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();

/** Values of every JSON type: for each field, the first its schema refuses is sent. */
const CANDIDATES: unknown[] = [{ nested: true }, 'not-a-fitting-value', 1.5, -7, true, [], ['x'], [{}], null];

type Props = { properties?: Record<string, TSchema>; required?: string[]; additionalProperties?: unknown };

/** A body holding every required field with a value its schema takes (the refused field is then the only error). */
function requiredOnly(schema: TSchema): Record<string, unknown> {
  const s = schema as Props;
  const out: Record<string, unknown> = {};
  for (const k of s.required ?? []) out[k] = Value.Create(s.properties![k]!);
  return out;
}

async function pathFor(key: string): Promise<string> {
  const [, path] = key.split(' ') as [string, string];
  const channels = (await (await t.h.admin('/admin/channels')).json()) as { data: Array<{ id: string }> };
  const prices = (await (await t.h.admin('/admin/prices')).json()) as { data: Array<{ model: string }> };
  const id = path.startsWith('/admin/channels/') ? channels.data[0]!.id : 'nope_1';
  const model = prices.data[0]?.model ?? 'nope';
  return path
    .replace('{id}', id)
    .replace('{model}', model)
    .replace('{name}', 'g-nope')
    .replace(/\{[a-z_]+\}/g, 'x_1');
}

describe('admin bodies refused by their schema answer 400 naming the field', () => {
  for (const [key, check] of Object.entries(ADMIN_BODIES)) {
    it(key, async () => {
      const method = key.split(' ')[0]!;
      const url = await pathFor(key);
      const s = check.schema as Props;
      const base = requiredOnly(check.schema);
      for (const [field, fieldSchema] of Object.entries(s.properties ?? {})) {
        const bad = CANDIDATES.find((c) => !Value.Check(fieldSchema, c));
        if (bad === undefined) continue;
        const json = { ...base, [field]: bad };
        const e = await expectB(await t.h.admin(url, { method, json }), 400, 'invalid_parameter');
        // The field, or one inside it where its reader names that (`cost.per_unit`).
        expect(e.error.param, `${key} ${JSON.stringify(json)}`).toMatch(new RegExp(`^${field}(\\.|$)`));
        expect(e.error.message).toContain(field);
        expect(e.error.request_id).toBeTruthy();
      }
      for (const field of s.required ?? []) {
        const json = { ...base };
        delete json[field];
        const e = await expectB(await t.h.admin(url, { method, json }), 400, 'missing_parameter');
        expect(e.error.param, `${key} without ${field}`).toBe(field);
      }
      if (s.additionalProperties === false) {
        const e = await expectB(
          await t.h.admin(url, { method, json: { ...base, zz_unknown: 1 } }),
          400,
          'invalid_parameter',
        );
        expect(e.error.param).toBe('zz_unknown');
        expect(e.error.message).toContain('Unknown field: zz_unknown');
      }
      await expectB(await t.h.admin(url, { method, json: ['not', 'an', 'object'] }), 400, 'invalid_request');
    });
  }
});
