// GET /openapi.json: the document, from the hand-written paths of each API plus a generic entry for any other
// registered route.
import { ERROR_CODES } from '../../errors/codes.ts';
import { str, int, obj, ref, jsonBody, ok, pathParam, familyB, familyA, admin, envelope, RATE_LIMIT_HEADERS, REQUEST_ID_HEADERS, type Operation } from './schema.ts';
import { adminPaths } from './paths-admin.ts';
import { accountPaths } from './paths-accounts.ts';
import { adminTaskPaths } from './paths-admin-tasks.ts';
import { v1Paths } from './paths-v1.ts';
import { vidxPaths } from './paths-vidx.ts';


/** A route registered on the server but not described above gets a generic, free-form description. */
function genericOperation(path: string, method: string): Operation {
  const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => pathParam(m[1]!, m[1]!));
  const parameters = params.length ? { parameters: params } : {};
  const body = ['post', 'put', 'patch'].includes(method) ? { requestBody: jsonBody(obj()) } : {};
  if (path.startsWith('/admin/')) return admin(`${method.toUpperCase()} ${path}`, { ...parameters, ...body });
  if (path.startsWith('/vidx/callbacks/')) return { tags: ['internal'], summary: 'Upstream callback receiver', security: [], ...parameters, ...body, responses: { '200': ok(obj()) } };
  if (path.startsWith('/vidx/')) return familyA(`${method.toUpperCase()} ${path}`, { ...parameters, ...body }, ok(envelope(obj())));
  return familyB(`${method.toUpperCase()} ${path}`, { ...parameters, ...body }, ok(obj()));
}

function withRegisteredRoutes(described: Record<string, Record<string, Operation>>, registered: Array<{ url: string; method: string | string[] }>) {
  const out = { ...described };
  for (const r of registered) {
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/+$/, '') || '/';
    // Same route shape, other parameter names: keep the hand-written description.
    const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
    const key = Object.keys(out).find((p) => shape(p) === shape(path)) ?? path;
    for (const m of (Array.isArray(r.method) ? r.method : [r.method]).map((x) => x.toLowerCase())) {
      if (m === 'head' || out[key]?.[m]) continue;
      out[key] = { ...out[key], [m]: genericOperation(key, m) };
    }
  }
  return out;
}

let cached: Record<string, unknown> | null = null;

/** The document; `registered` (the server's routes) fills in any route not described by hand. */
export function openApiDocument(registered: Array<{ url: string; method: string | string[] }> = []): Record<string, unknown> {
  if (cached && registered.length === 0) return cached;
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'Tollway',
      version: '0.1.0',
      description: 'Metered model gateway: family A (/vidx/v1, vendor-style video API, envelope errors) and family B (/v1, OpenAI/messages-compatible). Every response carries X-Gateway-Request-Id (also as x-request-id and request-id). /v1/messages routes answer errors in the messages shape. With TOLLWAY_CORS_ORIGINS set, allowed browser origins get CORS preflights and headers. JSON bodies may nest arrays and objects at most 256 levels deep (deeper: 400 invalid_request).',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: withRegisteredRoutes({ ...vidxPaths(), ...v1Paths(), ...adminPaths(), ...accountPaths(), ...adminTaskPaths() }, registered),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Client token (`x-api-key` is accepted too)' },
        adminBearer: { type: 'http', scheme: 'bearer', description: 'TOLLWAY_ADMIN_KEY; client tokens are refused' },
        metricsBearer: { type: 'http', scheme: 'bearer', description: 'TOLLWAY_METRICS_TOKEN (GET /metrics only)' },
      },
      headers: { RequestId: { description: 'Gateway request id', schema: str() }, ...RATE_LIMIT_HEADERS },
      schemas: {
        Model: obj({ id: str(), object: { const: 'model' }, created: int(), owned_by: str() }, ['id', 'object', 'created', 'owned_by']),
        FamilyBError: obj({
          error: obj({
            message: str('Readable text ending with "(request id: <id>)"'),
            type: str(),
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
            param: str(),
            request_id: str(),
            upstream_request_id: str(),
          }, ['message', 'type', 'code', 'request_id']),
        }, ['error']),
        MessagesError: obj({
          type: { const: 'error' },
          error: obj({
            type: { type: 'string', enum: ['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'request_too_large', 'rate_limit_error', 'api_error', 'overloaded_error', 'timeout_error'] },
            message: str('Readable text ending with "(request id: <id>)"'),
            code: { type: 'string', enum: Object.keys(ERROR_CODES) },
            param: str(),
            request_id: str(),
            upstream_request_id: str(),
          }, ['type', 'message', 'code', 'request_id']),
          request_id: str(),
        }, ['type', 'error', 'request_id']),
        FamilyAError: obj({ code: int('non-zero'), message: str(), request_id: str(), data: { type: 'null' } }, ['code', 'message', 'request_id', 'data']),
      },
      responses: {
        FamilyBError: { description: 'Error (family B shape)', headers: REQUEST_ID_HEADERS, content: { 'application/json': { schema: ref('FamilyBError') } } },
        MessagesError: { description: 'Error (the messages shape, family B fields inside; 429 insufficient_quota carries x-should-retry: false)', headers: REQUEST_ID_HEADERS, content: { 'application/json': { schema: ref('MessagesError') } } },
        FamilyAError: { description: 'Error (family A envelope)', headers: REQUEST_ID_HEADERS, content: { 'application/json': { schema: ref('FamilyAError') } } },
      },
    },
  };
  if (registered.length === 0) cached = doc;
  return doc;
}

