// GET /openapi.json: the document is served without auth and describes every contract and admin path by hand
// (security, parameters, answers, both error shapes); that it covers every route: openapi-coverage.test.ts.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';

const t = useHarness();

describe('GET /openapi.json', () => {
  const CONTRACT: Array<[string, string]> = [
    ['post', '/vidx/v1/videos/text2video'],
    ['post', '/vidx/v1/videos/multi-elements/init-selection'],
    ['post', '/vidx/v1/videos/multi-elements/add-selection'],
    ['post', '/vidx/v1/videos/multi-elements/delete-selection'],
    ['post', '/vidx/v1/videos/multi-elements/clear-selection'],
    ['post', '/vidx/v1/videos/multi-elements/preview-selection'],
    ['post', '/vidx/v1/videos/multi-elements'],
    ['get', '/vidx/v1/videos/multi-elements/{task_id}'],
    ['get', '/vidx/v1/videos/multi-elements'],
    ['post', '/vidx/v1/videos/omni-video'],
    ['get', '/v1/models'],
    ['post', '/v1/chat/completions'],
    ['post', '/v1/responses'],
    ['post', '/v1/messages'],
    ['post', '/v1/messages/count_tokens'],
    ['post', '/v1/embeddings'],
    ['post', '/v1/images/generations'],
    ['post', '/v1/images/edits'],
    ['post', '/v1/videos'],
    ['get', '/v1/videos/{video_id}'],
    ['get', '/v1/videos/{video_id}/content'],
  ];
  const ADMIN: Array<[string, string]> = [
    ['post', '/admin/tokens'],
    ['get', '/admin/tokens'],
    ['delete', '/admin/tokens/{id}'],
    ['patch', '/admin/tokens/{id}'],
    ['post', '/admin/tokens/{id}/topup'],
    ['post', '/admin/tokens/{id}/rotate'],
    ['post', '/admin/tokens/{id}/callback-secret/rotate'],
    ['get', '/admin/channels/{id}'],
    ['patch', '/admin/channels/{id}'],
    ['post', '/admin/channels/{id}/test'],
    ['post', '/admin/channels'],
    ['get', '/admin/channels'],
    ['post', '/admin/channels/{id}/disable'],
    ['get', '/admin/audit'],
  ];

  it('is served without auth, parses, and lists every contract path with bearer security and error shapes', async () => {
    const r = await t.h.fetch('/openapi.json');
    expect(r.status).toBe(200);
    type Doc = {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            security?: Array<Record<string, unknown>>;
            responses: Record<string, { $ref?: string }>;
            requestBody?: { content: Record<string, unknown> };
          }
        >
      >;
      components: {
        securitySchemes: Record<string, { type: string; scheme: string }>;
        schemas: Record<string, { properties?: Record<string, unknown> }>;
      };
    };
    const doc = JSON.parse(await r.text()) as Doc;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    for (const [method, path] of CONTRACT) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
      expect(op!.security).toEqual([{ bearer: [] }]);
      expect(op!.responses['200']).toBeDefined();
      const errRef = path.startsWith('/vidx/')
        ? '#/components/responses/FamilyAError'
        : path.startsWith('/v1/messages')
          ? '#/components/responses/MessagesError'
          : '#/components/responses/FamilyBError';
      for (const s of ['401', '404', '413']) expect(op!.responses[s]?.$ref, `${path} ${s}`).toBe(errRef);
      if (method === 'post') expect(op!.requestBody?.content['application/json']).toBeDefined();
      // described by hand, not by the generic fallback for undocumented routes
      expect((op as { summary?: string }).summary, `${method} ${path}`).not.toMatch(/^(GET|POST|DELETE|PUT|PATCH) \//);
    }
    for (const [method, path] of ADMIN) {
      expect(doc.paths[path]?.[method]?.security, `${method} ${path}`).toEqual([{ adminBearer: [] }]);
    }
    expect(doc.paths['/healthz']?.get?.security).toEqual([]);
    expect(doc.paths['/readyz']?.get?.security).toEqual([]);
    expect(doc.paths['/metrics']?.get?.security).toEqual([{ metricsBearer: [] }, { adminBearer: [] }]);
    expect(doc.paths['/v1/images/edits']?.post?.requestBody?.content['multipart/form-data']).toBeDefined();
    // every HTTP status an error code can have is described (410 session/result expired, 422 no image output …)
    const { ERROR_CODES } = await import('../../src/errors/codes.ts');
    for (const { status } of Object.values(ERROR_CODES)) {
      expect(doc.paths['/v1/chat/completions']!.post!.responses[String(status)]?.$ref, `status ${status}`).toBe(
        '#/components/responses/FamilyBError',
      );
      expect(doc.paths['/vidx/v1/videos/text2video']!.post!.responses[String(status)]?.$ref, `status ${status}`).toBe(
        '#/components/responses/FamilyAError',
      );
    }
    expect(Object.keys(doc.components.schemas.FamilyBError!.properties!)).toEqual(['error']);
    expect(Object.keys(doc.components.schemas.FamilyAError!.properties!).sort()).toEqual([
      'code',
      'data',
      'message',
      'request_id',
    ]);
  });

  it('describes the admin metering routes by hand: their query parameters and answer fields', async () => {
    type Param = { name: string; in: string; required?: boolean; deprecated?: boolean };
    type Props = { properties?: Record<string, unknown> };
    type Op = {
      summary: string;
      security: unknown;
      parameters?: Param[];
      requestBody?: unknown;
      responses: Record<
        string,
        {
          content?: Record<
            string,
            { schema: { properties?: Record<string, { items?: Props & { anyOf?: Props[] } }> } }
          >;
        }
      >;
    };
    const doc = (await (await t.h.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, Op>> };
    const METERING: Array<[string, string, string[], string[]]> = [
      // method, path, parameters (query or path), fields of each item of `data` (or of the answer itself)
      [
        'get',
        '/admin/ledger',
        ['token_id', 'model', 'request_id', 'task_id', 'since', 'until', 'limit', 'cursor', 'before_id', 'format'],
        [
          'id',
          'idempotency_key',
          'token_id',
          'model',
          'kind',
          'quantities',
          'unit_prices',
          'amount',
          'request_id',
          'task_id',
          'upstream_request_id',
          'created_at',
        ],
      ],
      [
        'get',
        '/admin/logs',
        ['request_id', 'token_id', 'model', 'status', 'since', 'until', 'limit', 'cursor', 'format'],
        [
          'request_id',
          'token_id',
          'model',
          'endpoint',
          'status',
          'latency_ms',
          'ttfb_ms',
          'channel_id',
          'attempts',
          'usage',
          'amount',
          'upstream_request_id',
        ],
      ],
      [
        'get',
        '/admin/tasks',
        ['state', 'kind', 'token_id', 'model', 'since', 'until', 'limit', 'cursor'],
        ['id', 'kind', 'state', 'token_id', 'model', 'channel_id', 'hold_amount', 'created_at'],
      ],
      ['post', '/admin/tasks/{id}/cancel', ['id'], []],
      [
        'get',
        '/admin/bills',
        ['token_id', 'account_id', 'model', 'period', 'since', 'until', 'format', 'by'],
        ['token_id', 'token_name', 'period', 'period_start', 'entries', 'amount', 'amount_units', 'models'],
      ],
      ['get', '/admin/tokens/{id}/usage', ['id', 'since', 'until'], []],
      ['get', '/admin/prices', ['limit', 'cursor'], ['model', 'kind', 'price', 'price_overridden']],
      ['get', '/admin/prices/{model}', ['model'], []],
      ['put', '/admin/prices/{model}', ['model'], []],
      ['delete', '/admin/prices/{model}', ['model'], []],
      [
        'get',
        '/admin/audit',
        ['limit', 'cursor', 'action', 'actor', 'target', 'person'],
        ['id', 'at', 'actor', 'action', 'target', 'detail', 'request_id', 'person', 'key_id'],
      ],
    ];
    for (const [method, path, params, fields] of METERING) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op!.summary, `${method} ${path}`).not.toMatch(/^(GET|POST|DELETE|PUT|PATCH) \//);
      expect(op!.security).toEqual([{ adminBearer: [] }]);
      expect((op!.parameters ?? []).map((p) => p.name).sort(), `${method} ${path}`).toEqual([...params].sort());
      for (const p of op!.parameters ?? [])
        expect(p.in, `${path} ${p.name}`).toBe(path.includes(`{${p.name}}`) ? 'path' : 'query');
      const schema = op!.responses['200']!.content!['application/json']!.schema;
      // A list whose items take one of several shapes (the bill's lines per token or per model): the first is the
      // default.
      const items = schema.properties?.data?.items;
      const itemProps = items?.properties ?? items?.anyOf?.[0]?.properties ?? {};
      for (const f of fields) expect(Object.keys(itemProps), `${path} data[].${f}`).toContain(f);
    }
    expect(doc.paths['/admin/prices/{model}']!.put!.requestBody).toBeDefined();
    expect(Object.keys(doc.paths['/admin/bills']!.get!.responses['200']!.content!)).toEqual(
      expect.arrayContaining(['application/json', 'text/csv']),
    );
    const modelLine =
      doc.paths['/admin/bills']!.get!.responses['200']!.content!['application/json']!.schema.properties!.data!.items!
        .anyOf![1]!;
    expect(Object.keys(modelLine.properties!)).toEqual(
      expect.arrayContaining(['kind', 'model', 'entries', 'amount', 'amount_units']),
    );
    const usage =
      doc.paths['/admin/tokens/{id}/usage']!.get!.responses['200']!.content!['application/json']!.schema.properties!;
    expect(Object.keys(usage)).toEqual(expect.arrayContaining(['balance', 'usage', 'period']));
    expect(
      Object.keys(doc.paths['/admin/ledger']!.get!.responses['200']!.content!['application/json']!.schema.properties!),
    ).toEqual(expect.arrayContaining(['data', 'has_more', 'next_cursor', 'next_before_id']));
    for (const path of ['/admin/ledger', '/admin/logs'])
      expect(Object.keys(doc.paths[path]!.get!.responses['200']!.content!), path).toEqual(
        expect.arrayContaining(['application/json', 'text/csv']),
      );
    // The reconciliation report: described by hand, and its fields are the ones the server answers.
    const rec = doc.paths['/admin/reconcile']!.get!;
    expect(rec.summary).not.toMatch(/^GET \//);
    expect((rec.parameters ?? []).map((p) => p.name).sort()).toEqual(['from', 'since', 'to', 'until']);
    // from/to: the names before since/until, kept for one release and marked so.
    expect(rec.parameters!.filter((p) => p.deprecated).map((p) => p.name)).toEqual(['from', 'to']);
    const described = Object.keys(rec.responses['200']!.content!['application/json']!.schema.properties!).sort();
    const answered = Object.keys(
      (await (await t.h.admin('/admin/reconcile')).json()) as Record<string, unknown>,
    ).sort();
    expect(described).toEqual(answered);
  });
});
