// GET /openapi.json covers the server: every route it registers is described, and a route nobody described yet gets a
// generic entry with the right security and family.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';

const t = useHarness();

describe('OpenAPI covers the server', () => {
  it('rows nobody described yet get a generic entry with the right security and family', async () => {
    const { openApiDocument } = await import('../../src/http/openapi/document.ts');
    type Op = {
      security: unknown;
      parameters?: Array<{ name: string; in: string }>;
      responses: Record<string, { $ref?: string }>;
      requestBody?: unknown;
    };
    const admin = { family: 'v1', body: 'control', auth: 'admin', front: 'fastify' } as const;
    const doc = openApiDocument([
      { ...admin, method: 'GET', path: '/admin/widgets/:wid' },
      { ...admin, method: 'DELETE', path: '/admin/widgets/:wid' },
      {
        method: 'POST',
        path: '/vidx/v1/videos/new-kind',
        family: 'vidx',
        body: 'media',
        auth: 'token',
        front: 'fastify',
      },
      { method: 'GET', path: '/v1/models/:other', family: 'v1', body: 'control', auth: 'token', front: 'fastify' },
    ]) as { paths: Record<string, Record<string, Op>> };
    expect(doc.paths['/admin/widgets/{wid}']?.get?.security).toEqual([{ adminBearer: [] }]);
    expect(doc.paths['/admin/widgets/{wid}']?.delete?.parameters).toEqual([
      expect.objectContaining({ name: 'wid', in: 'path' }),
    ]);
    expect(doc.paths['/admin/widgets/{wid}']?.head).toBeUndefined();
    expect(doc.paths['/vidx/v1/videos/new-kind']?.post?.responses['404']?.$ref).toBe(
      '#/components/responses/FamilyAError',
    );
    expect(doc.paths['/vidx/v1/videos/new-kind']?.post?.requestBody).toBeDefined();
    // the same route shape as a described path keeps the hand-written description
    expect(doc.paths['/v1/models/{other}']).toBeUndefined();
  });

  it('every registered route (method and path) is described in /openapi.json', async () => {
    const doc = (await (await t.h.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const described = new Set<string>();
    for (const [p, ops] of Object.entries(doc.paths))
      for (const m of Object.keys(ops)) described.add(`${m.toUpperCase()} ${p.replace(/\{[^}]+\}/g, ':p')}`);
    const missing: string[] = [];
    const walk = (text: string) => {
      // printRoutes with commonPrefix:false prints one line per path segment tree; rebuild full paths.
      const stack: string[] = [];
      for (const line of text.split('\n')) {
        const m = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)/.exec(line);
        if (!m) continue;
        const depth = m[1]!.length / 4;
        stack.length = depth;
        stack[depth] = m[2]!;
        const path = stack.join('').replace(/:[A-Za-z0-9_]+/g, ':p');
        for (const method of m[3]!.split(', '))
          if (method !== 'HEAD' && !described.has(`${method} ${path}`)) missing.push(`${method} ${path}`);
      }
    };
    walk(t.h.gw.app.printRoutes({ commonPrefix: false }));
    expect(missing).toEqual([]);
  });
});
