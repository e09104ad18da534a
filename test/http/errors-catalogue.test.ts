// The error table in docs/api.md is the client-facing documentation of src/errors/codes.ts: it must list every
// code with the same HTTP status, family B type and family A code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/codes.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { familyOf, renderFamilyA, renderFamilyB } from '../../src/errors/render.ts';

const apiDoc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');

function docErrorRows(): Map<string, { status: number; type: string; vendor: number }> {
  const section = apiDoc.split(/^## Errors$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = new Map<string, { status: number; type: string; vendor: number }>();
  for (const m of section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| `([a-z_]+)` \| (\d+) \|/gm)) {
    rows.set(m[1]!, { status: Number(m[2]), type: m[3]!, vendor: Number(m[4]) });
  }
  return rows;
}

describe('error catalogue', () => {
  it('docs/api.md "## Errors" lists every code with its status, type and family A code', () => {
    const rows = docErrorRows();
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(rows.get(code), `docs/api.md row for ${code}`).toEqual({
        status: spec.status,
        type: spec.type,
        vendor: spec.vendorCode,
      });
    }
    expect([...rows.keys()].filter((c) => !(c in ERROR_CODES))).toEqual([]);
  });

  it('statuses are what a demanding client expects', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(spec.status, code).toBeGreaterThanOrEqual(400);
      expect(spec.vendorCode, code).not.toBe(0);
    }
    expect(ERROR_CODES.invalid_json.status).toBe(400);
    expect(ERROR_CODES.missing_token.status).toBe(401);
    expect(ERROR_CODES.permission_denied.status).toBe(403);
    expect(ERROR_CODES.model_not_found.status).toBe(404);
    expect(ERROR_CODES.method_not_allowed.status).toBe(405);
    expect(ERROR_CODES.conflict.status).toBe(409);
    expect(ERROR_CODES.payload_too_large.status).toBe(413);
    expect(ERROR_CODES.unsupported_content_type.status).toBe(415);
    expect(ERROR_CODES.rate_limit_exceeded.status).toBe(429);
    expect(ERROR_CODES.upstream_error.status).toBe(502);
    expect(ERROR_CODES.upstream_timeout.status).toBe(504);
  });

  it('renderers: family B puts the request id in parentheses, family A is the envelope', () => {
    const e = new GatewayError('model_not_found', 'no such model', { param: 'model', upstreamRequestId: 'up-1' });
    expect(renderFamilyB(e, 'req_1')).toEqual({
      error: {
        message: 'no such model (request id: req_1)',
        type: 'invalid_request_error',
        code: 'model_not_found',
        param: 'model',
        request_id: 'req_1',
        upstream_request_id: 'up-1',
      },
    });
    expect(renderFamilyA(e, 'req_1')).toEqual({
      code: 1203,
      message: 'no such model',
      request_id: 'req_1',
      data: null,
    });
    expect(familyOf('/vidx/v1/videos/text2video')).toBe('vidx');
    expect(familyOf('/v1/models')).toBe('v1');
    expect(familyOf('/admin/tokens')).toBe('v1');
  });
});
