// GET /openapi.json: the document of the route table's rows, each with its hand-written operation (or a generic one).
import { ERROR_CODES } from '../../errors/codes.ts';
import {
  str,
  int,
  obj,
  ref,
  jsonBody,
  ok,
  pathParam,
  familyB,
  familyA,
  admin,
  RATE_LIMIT_HEADERS,
  REQUEST_ID_HEADERS,
  type Operation,
} from './schema.ts';
import { envelope } from './schema-vidx.ts';
import { adminPaths } from './paths-admin.ts';
import { adminMeteringPaths } from './paths-admin-metering.ts';
import { adminReportPaths } from './paths-admin-reports.ts';
import { opsPaths } from './paths-ops.ts';
import { accountPaths } from './paths-accounts.ts';
import { adminTaskPaths } from './paths-admin-tasks.ts';
import { adminWebhookPaths } from './paths-admin-webhooks.ts';
import { creditPaths } from './paths-credit.ts';
import { staffPaths } from './paths-staff.ts';
import { ssoPaths } from './paths-sso.ts';
import { portalPaths } from './paths-portal.ts';
import { rolesFor } from '../../core/staff/roles.ts';
import { v1Paths } from './paths-v1.ts';
import { videoPaths } from './paths-videos.ts';
import { videoModel, videoModelInfo, videoModelPaths } from './paths-video-models.ts';
import { sdkEdgePaths } from './paths-sdk-edges.ts';
import { vidxPaths } from './paths-vidx.ts';
import type { RouteInfo } from '../front/route-row.ts';

/** The hand-written operations, by OpenAPI path and method. */
export const describedPaths = (): Record<string, Record<string, Operation>> => ({
  ...vidxPaths(),
  ...v1Paths(),
  ...videoPaths(),
  ...videoModelPaths(),
  ...sdkEdgePaths(),
  ...adminPaths(),
  ...adminReportPaths(),
  ...adminMeteringPaths(),
  ...opsPaths(),
  ...accountPaths(),
  ...adminTaskPaths(),
  ...adminWebhookPaths(),
  ...creditPaths(),
  ...staffPaths(),
  ...ssoPaths(),
  ...portalPaths(),
});

/** A row without a hand-written description gets a generic, free-form one in its family's shape. */
function genericOperation(row: RouteInfo, path: string): Operation {
  const method = row.method.toLowerCase();
  const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => pathParam(m[1]!, m[1]!));
  const parameters = params.length ? { parameters: params } : {};
  const body = ['post', 'put', 'patch'].includes(method) ? { requestBody: jsonBody(obj()) } : {};
  const summary = `${row.method} ${path}`;
  if (row.auth === 'admin') return admin(summary, { ...parameters, ...body });
  if (row.auth === 'none' && row.family === 'vidx')
    return {
      tags: ['internal'],
      summary: 'Upstream callback receiver',
      security: [],
      ...parameters,
      ...body,
      responses: { '200': ok(obj()) },
    };
  if (row.family === 'vidx') return familyA(summary, { ...parameters, ...body }, ok(envelope(obj())));
  return familyB(summary, { ...parameters, ...body }, ok(obj()));
}

/** The OpenAPI path of a row (`:id` → `{id}`). */
export const openApiPath = (row: RouteInfo): string => row.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** An admin operation with the staff roles that may call it (its route-table rule), listed and in words. */
function withRoles(op: Operation, roles: string[]): Operation {
  const text = `Roles: ${roles.join(', ')}.`;
  const description = typeof op.description === 'string' ? `${op.description} ${text}` : text;
  return { ...op, description, 'x-tollway-roles': roles };
}

/** The paths: one operation per route-table row — its hand-written description, else a generic one. */
function tablePaths(described: Record<string, Record<string, Operation>>, rows: readonly RouteInfo[]) {
  const out: Record<string, Record<string, Operation>> = {};
  // Same route shape, other parameter names: the hand-written description's names.
  const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
  const byShape = new Map(Object.keys(described).map((p) => [shape(p), p]));
  for (const row of rows) {
    const own = openApiPath(row);
    const key = byShape.get(shape(own)) ?? own;
    const m = row.method.toLowerCase();
    const op = described[key]?.[m] ?? genericOperation(row, key);
    out[key] = { ...out[key], [m]: row.rule ? withRoles(op, rolesFor(row.rule, row.method)) : op };
  }
  return out;
}

/** The document of the routes in `rows` (a server's: the route table's rows it serves). */
export function openApiDocument(rows: readonly RouteInfo[]): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tollway',
      version: '0.1.0',
      description:
        'Metered model gateway: family A (/vidx/v1, vendor-style video API, envelope errors) and family B (/v1, OpenAI/messages-compatible). Every response carries X-Gateway-Request-Id (also as x-request-id and request-id). /v1/messages routes answer errors in the messages shape. With TOLLWAY_CORS_ORIGINS set, allowed browser origins get CORS preflights and headers. JSON bodies may nest arrays and objects at most 256 levels deep and hold at most 50,000 keys and 500,000 values in arrays and objects (more: 400 invalid_request); the text of a chat, responses or messages call outside inline media (data URLs, base64 data members) is limited to 4 Mi characters (413 payload_too_large), and its top-level fields that neither the API nor the upstream defines are dropped.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: tablePaths(describedPaths(), rows),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Client token (`x-api-key` is accepted too)' },
        adminBearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            "TOLLWAY_ADMIN_KEY (an owner) or a staff person's personal key (tws-…, their role: each admin operation's x-tollway-roles); client tokens are refused; a role the operation does not list gets 403",
        },
        metricsBearer: { type: 'http', scheme: 'bearer', description: 'TOLLWAY_METRICS_TOKEN (GET /metrics only)' },
      },
      headers: { RequestId: { description: 'Gateway request id', schema: str() }, ...RATE_LIMIT_HEADERS },
      schemas: {
        Model: obj(
          {
            id: str(),
            object: { const: 'model' },
            created: int(),
            owned_by: str(),
            video: { ...ref('VideoModelInfo'), description: 'GET /v1/models/{model} of a video model only' },
          },
          ['id', 'object', 'created', 'owned_by'],
        ),
        VideoModel: videoModel,
        VideoModelInfo: videoModelInfo,
        FamilyBError: obj(
          {
            error: obj(
              {
                message: str('Readable text ending with "(request id: <id>)"'),
                type: str(),
                code: { type: 'string', enum: Object.keys(ERROR_CODES) },
                param: str(),
                request_id: str(),
                upstream_request_id: str(),
              },
              ['message', 'type', 'code', 'request_id'],
            ),
          },
          ['error'],
        ),
        MessagesError: obj(
          {
            type: { const: 'error' },
            error: obj(
              {
                type: {
                  type: 'string',
                  enum: [
                    'invalid_request_error',
                    'authentication_error',
                    'permission_error',
                    'not_found_error',
                    'request_too_large',
                    'rate_limit_error',
                    'api_error',
                    'overloaded_error',
                    'timeout_error',
                  ],
                },
                message: str('Readable text ending with "(request id: <id>)"'),
                code: { type: 'string', enum: Object.keys(ERROR_CODES) },
                param: str(),
                request_id: str(),
                upstream_request_id: str(),
              },
              ['type', 'message', 'code', 'request_id'],
            ),
            request_id: str(),
          },
          ['type', 'error', 'request_id'],
        ),
        FamilyAError: obj({ code: int('non-zero'), message: str(), request_id: str(), data: { type: 'null' } }, [
          'code',
          'message',
          'request_id',
          'data',
        ]),
      },
      responses: {
        FamilyBError: {
          description: 'Error (family B shape)',
          headers: REQUEST_ID_HEADERS,
          content: { 'application/json': { schema: ref('FamilyBError') } },
        },
        MessagesError: {
          description:
            'Error (the messages shape, family B fields inside; 429 insufficient_quota carries x-should-retry: false)',
          headers: REQUEST_ID_HEADERS,
          content: { 'application/json': { schema: ref('MessagesError') } },
        },
        FamilyAError: {
          description: 'Error (family A envelope)',
          headers: REQUEST_ID_HEADERS,
          content: { 'application/json': { schema: ref('FamilyAError') } },
        },
      },
    },
  };
}
