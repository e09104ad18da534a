// One schema per admin body: for every admin route that takes a body, the OpenAPI document's requestBody schema is
// the very object its validator checks (src/http/openapi/admin-bodies.ts), so the two cannot drift. A new admin route
// with a body and no shared schema fails here (its generic or hand-written body is not in the table).
import { describe, expect, it } from 'vitest';
import { ADMIN_BODIES } from '../../../src/http/openapi/admin-bodies.ts';
import { openApiDocument, openApiPath } from '../../../src/http/openapi/document.ts';
import { ROUTES } from '../../../src/http/front/route-table.ts';

type Op = { requestBody?: { content: Record<string, { schema: unknown }> } };
const doc = openApiDocument(ROUTES) as { paths: Record<string, Record<string, Op>> };
const adminBodyRows = ROUTES.filter((r) => r.auth === 'admin' && ['POST', 'PUT', 'PATCH'].includes(r.method));

/** The document's path for a row (its described shape, as document.ts matches it). */
function opOf(method: string, path: string): Op | undefined {
  const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
  const key = Object.keys(doc.paths).find((p) => shape(p) === shape(path));
  return key ? doc.paths[key]?.[method.toLowerCase()] : undefined;
}

describe('admin bodies: one schema for the validator and the document', () => {
  it('every admin route with a documented body shows the very schema its validator checks', () => {
    expect(adminBodyRows.length).toBeGreaterThan(10);
    for (const row of adminBodyRows) {
      const key = `${row.method} ${openApiPath(row)}`;
      const op = opOf(row.method, openApiPath(row));
      expect(op, key).toBeDefined();
      const check = ADMIN_BODIES[key];
      if (!op?.requestBody) {
        expect(check, `${key}: a shared body schema but no requestBody in the document`).toBeUndefined();
        continue;
      }
      expect(check, `${key}: its body has no shared schema (src/http/openapi/admin-bodies.ts)`).toBeDefined();
      for (const [type, media] of Object.entries(op.requestBody.content))
        expect(media.schema === check!.schema, `${key} ${type}: not the validator's schema object`).toBe(true);
    }
  });

  it('the table names only routes that exist', () => {
    const keys = new Set(adminBodyRows.map((r) => `${r.method} ${openApiPath(r)}`));
    for (const key of Object.keys(ADMIN_BODIES)) expect(keys.has(key), key).toBe(true);
  });
});
