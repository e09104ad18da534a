// OpenAPI paths of the operations endpoints (probes, metrics, this document) and the operator console.
import { ROLES } from '../../core/staff/roles.ts';
import { str, int, obj, jsonBody, ok, type Operation } from './schema.ts';

export function opsPaths(): Record<string, Record<string, Operation>> {
  return {
    '/console/api/session': consoleSession(),
    ...consoleFiles(),
    '/healthz': {
      get: {
        tags: ['operations'],
        summary:
          'Liveness: 200 while the process serves HTTP (nothing else is checked; while it drains new connections are refused, and a request on an open one gets 503)',
        security: [],
        responses: {
          '200': ok(obj({ status: { const: 'ok' } })),
          '503': { $ref: '#/components/responses/FamilyBError' },
        },
      },
    },
    '/readyz': {
      get: {
        tags: ['operations'],
        summary:
          'Readiness: 200 when the database answers, holds every migration, and Redis answers when configured; 503 service_unavailable naming what is missing',
        security: [],
        responses: {
          '200': ok(
            obj(
              {
                status: { const: 'ready' },
                checks: obj(
                  { database: { const: 'ok' }, migrations: { const: 'ok' }, redis: { enum: ['ok', 'not_configured'] } },
                  ['database', 'migrations', 'redis'],
                ),
              },
              ['status', 'checks'],
            ),
          ),
          '503': { $ref: '#/components/responses/FamilyBError' },
        },
      },
    },
    '/metrics': {
      get: {
        tags: ['operations'],
        summary:
          'Prometheus metrics (text exposition format): requests, upstream attempts, breakers, write queues, tasks, holds (docs/operations.md)',
        security: [{ metricsBearer: [] }, { adminBearer: [] }],
        responses: {
          '200': ok(str(), 'Prometheus text format 0.0.4', 'text/plain'),
          '401': { $ref: '#/components/responses/FamilyBError' },
          '403': { $ref: '#/components/responses/FamilyBError' },
        },
      },
    },
    '/openapi.json': {
      get: { tags: ['operations'], summary: 'This document', security: [], responses: { '200': ok(obj()) } },
    },
  };
}

/** The operator console's page and bundle (TOLLWAY_CONSOLE; served under a strict Content-Security-Policy). */
function consoleFiles(): Record<string, Record<string, Operation>> {
  const file = (summary: string, type: string): Record<string, Operation> => ({
    get: {
      tags: ['console'],
      summary,
      security: [],
      responses: { '200': { description: summary, content: { [type]: { schema: str() } } } },
    },
  });
  return {
    '/console': file('The operator console (one page; its routes are in the URL fragment)', 'text/html'),
    '/console/app.js': file("The console's script bundle", 'text/javascript'),
    '/console/app.css': file("The console's style sheet", 'text/css'),
  };
}

/** The operator console's sign-in (docs/operations.md#operator-console); its page and bundle are not API. */
function consoleSession(): Record<string, Operation> {
  const session = obj({
    session_id: str(),
    csrf: str('send as X-CSRF-Token with every change'),
    expires_at: int('ms'),
    person: {
      type: ['object', 'null'],
      properties: { id: str('usr_…'), name: str(), email: str() },
      description: 'The staff person signed in; null: the bootstrap admin key',
    },
    key_id: { type: ['string', 'null'], description: 'The key signed in with: skey_… or admin-key' },
    role: { type: 'string', enum: [...ROLES] },
    access: {
      type: 'object',
      additionalProperties: { type: 'string', enum: ['write', 'read', 'none'] },
      description: 'What the role may do in each area of the admin API (the console hides the rest)',
    },
  });
  const op = (summary: string, extra: Omit<Operation, 'summary'>): Operation => ({
    tags: ['console'],
    summary,
    security: [],
    ...extra,
  });
  return {
    post: op(
      'Sign in with a personal staff key or the admin key: sets the HttpOnly session cookie; 403 wrong key, 401 an expired or revoked staff key, 429 after 5 wrong keys a minute',
      {
        requestBody: jsonBody(obj({ key: str('a staff key (tws-…) or the admin key') }, ['key'])),
        responses: {
          '201': ok(session),
          '403': { $ref: '#/components/responses/FamilyBError' },
          '429': { $ref: '#/components/responses/FamilyBError' },
        },
      },
    ),
    get: op('The signed-in session (by its cookie), or 401', {
      responses: { '200': ok(session), '401': { $ref: '#/components/responses/FamilyBError' } },
    }),
    delete: op('Sign out (needs X-CSRF-Token): the session is revoked on every instance', {
      responses: { '204': { description: 'Signed out' } },
    }),
  };
}
