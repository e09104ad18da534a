// GET /openapi.json: an OpenAPI 3.1 description of every contract path (family A and B), the admin
// API and /healthz. As the contract says, request and response bodies are free-form objects; the
// documented fields are listed as properties (additionalProperties stays open).
import { ERROR_CODES } from '../errors/codes.ts';

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const int = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
const num = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
const obj = (properties: Record<string, Schema> = {}, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: true,
  properties,
  ...(required.length ? { required } : {}),
});
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const FAMILY_B_ERROR_STATUSES = ['400', '401', '403', '404', '405', '409', '413', '415', '429', '500', '502', '503', '504'];
const FAMILY_A_ERROR_STATUSES = FAMILY_B_ERROR_STATUSES;

function errorResponses(family: 'a' | 'b'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of family === 'a' ? FAMILY_A_ERROR_STATUSES : FAMILY_B_ERROR_STATUSES) {
    out[s] = { $ref: `#/components/responses/${family === 'a' ? 'FamilyAError' : 'FamilyBError'}` };
  }
  return out;
}

const jsonBody = (schema: Schema, multipart = false) => ({
  required: true,
  content: { 'application/json': { schema }, ...(multipart ? { 'multipart/form-data': { schema } } : {}) },
});
const ok = (schema: Schema, description = 'Success', contentType = 'application/json') => ({
  description,
  headers: { 'X-Gateway-Request-Id': { $ref: '#/components/headers/RequestId' } },
  content: { [contentType]: { schema } },
});
const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, schema: str(), description });
const PAGE = [{ name: 'pageNum', in: 'query', schema: int() }, { name: 'pageSize', in: 'query', schema: int() }];

function familyB(summary: string, op: Omit<Operation, 'summary'>, okResponse: unknown): Operation {
  return { tags: ['family B (/v1)'], summary, security: [{ bearer: [] }], ...op, responses: { '200': okResponse, ...errorResponses('b') } };
}
function familyA(summary: string, op: Omit<Operation, 'summary'>, okResponse: unknown): Operation {
  return { tags: ['family A (/vidx/v1)'], summary, security: [{ bearer: [] }], ...op, responses: { '200': okResponse, ...errorResponses('a') } };
}
function admin(summary: string, op: Omit<Operation, 'summary'> = {}, status = '200'): Operation {
  return { tags: ['admin'], summary, security: [{ adminBearer: [] }], ...op, responses: { [status]: ok(obj()), ...errorResponses('b') } };
}

const envelope = (data: Schema): Schema => obj({ code: int('0 on success'), message: str('`success` on success'), request_id: str(), data }, ['code', 'message', 'request_id']);
const taskData = obj({ task_id: str(), task_status: { type: 'string', enum: ['submitted', 'processing', 'succeed', 'failed'] }, created_at: int('ms'), updated_at: int('ms') });
const point = obj({ x: num('in [0, 1]'), y: num('in [0, 1]') }, ['x', 'y']);
const selection = obj({ session_id: str(), frame_index: int(), points: { ...arr(point), maxItems: 10 } }, ['session_id', 'frame_index', 'points']);
const usage = obj({ prompt_tokens: int(), completion_tokens: int(), input_tokens: int(), output_tokens: int(), total_tokens: int(), prompt_tokens_details: obj({ cached_tokens: int(), cache_creation_input_tokens: int() }), cache_read_input_tokens: int(), cache_creation_input_tokens: int() });
const chatMessage = obj({ role: str(), content: { oneOf: [str(), arr(obj({ type: str('text | image_url'), text: str(), image_url: obj({ url: str() }) }))] } }, ['role', 'content']);
const videoTask = obj({ video_id: str(), id: str(), status: { type: 'string', enum: ['queued', 'in_progress', 'processing', 'completed', 'success', 'failed', 'cancelled'] }, url: str(), expires_at: int() });

function paths(): Record<string, Record<string, Operation>> {
  return {
    // ---- family A (contract §4.1)
    '/vidx/v1/videos/text2video': {
      post: familyA('Create a text-to-video task', {
        requestBody: jsonBody(obj({
          model_name: { type: 'string', default: 'vidx-v1', enum: ['vidx-video-o1', 'vidx-v1', 'vidx-v1-5', 'vidx-v1-6', 'vidx-v2-master', 'vidx-v2-1', 'vidx-v2-1-master', 'vidx-v2-5-turbo', 'vidx-v2-6', 'vidx-v3', 'vidx-v2-5'] },
          prompt: { type: 'string', maxLength: 2500 },
          negative_prompt: str(),
          cfg_scale: { type: 'number', minimum: 0, maximum: 1 },
          sound: { type: 'string', enum: ['on', 'off'] },
          mode: { type: 'string', enum: ['std', 'pro'], default: 'std' },
          camera_control: obj({ type: { type: 'string', enum: ['simple', 'down_back', 'forward_up', 'right_turn_forward', 'left_turn_forward'] }, config: obj({ horizontal: num(), vertical: num(), pan: num(), tilt: num(), roll: num(), zoom: num() }) }),
          aspect_ratio: { type: 'string', enum: ['16:9', '9:16', '1:1'], default: '16:9' },
          duration: { type: 'string', enum: ['5', '10'], default: '5' },
          watermark_info: obj(),
          callback_url: str(),
          external_task_id: str(),
        }, ['prompt'])),
      }, ok(envelope(taskData), 'Task created')),
      get: familyA('List text-to-video tasks', { parameters: PAGE }, ok(envelope(arr(taskData)))),
    },
    '/vidx/v1/videos/multi-elements/init-selection': {
      post: familyA('Initialise a video for multi-element editing', {
        requestBody: jsonBody(obj({ video_id: str('exactly one of video_id / video_url'), video_url: str() })),
      }, ok(envelope(obj({ status: int(), session_id: str(), fps: num(), original_duration: num(), width: int(), height: int(), total_frame: int(), normalized_video: str() })))),
    },
    '/vidx/v1/videos/multi-elements/add-selection': { post: familyA('Add a selected area', { requestBody: jsonBody(selection) }, ok(envelope(obj()))) },
    '/vidx/v1/videos/multi-elements/delete-selection': { post: familyA('Remove a selected area', { requestBody: jsonBody(selection) }, ok(envelope(obj()))) },
    '/vidx/v1/videos/multi-elements/clear-selection': { post: familyA('Clear the selection', { requestBody: jsonBody(obj({ session_id: str() }, ['session_id'])) }, ok(envelope(obj()))) },
    '/vidx/v1/videos/multi-elements/preview-selection': { post: familyA('Preview the selection', { requestBody: jsonBody(obj({ session_id: str() }, ['session_id'])) }, ok(envelope(obj()))) },
    '/vidx/v1/videos/multi-elements': {
      post: familyA('Create a multi-element edit task', {
        requestBody: jsonBody(obj({
          model_name: { type: 'string', enum: ['vidx-v1-6'] },
          session_id: str(),
          edit_mode: { type: 'string', enum: ['addition', 'swap', 'removal'] },
          image_list: arr(obj({ image: str() })),
          prompt: str(),
          negative_prompt: str(),
          mode: { type: 'string', enum: ['std', 'pro'] },
          duration: { type: 'string', enum: ['5', '10'] },
          callback_url: str(),
          external_task_id: str(),
        }, ['session_id', 'edit_mode', 'prompt'])),
      }, ok(envelope(taskData), 'Task created')),
      get: familyA('List multi-element edit tasks', { parameters: PAGE }, ok(envelope(arr(taskData)))),
    },
    '/vidx/v1/videos/multi-elements/{task_id}': {
      get: familyA('Query a multi-element edit task', { parameters: [pathParam('task_id', 'Task id')] }, ok(envelope(obj({
        task_id: str(), task_status: str(), session_id: str(),
        task_result: obj({ videos: arr(obj({ id: str(), session_id: str(), url: str(), duration: str() })) }),
      })))),
    },
    '/vidx/v1/videos/omni-video': {
      post: familyA('Create a vidx-v3-omni task', { requestBody: jsonBody(obj({ model_name: { type: 'string', enum: ['vidx-v3-omni'] } })) }, ok(envelope(taskData), 'Task created')),
      get: familyA('List omni-video tasks', { parameters: PAGE }, ok(envelope(arr(taskData)))),
    },
    // Beyond the contract table: the query/list routes the vendor API has for the other task kinds.
    '/vidx/v1/videos/omni-video/{task_id}': { get: familyA('Query an omni-video task', { parameters: [pathParam('task_id', 'Task id')] }, ok(envelope(taskData))) },
    '/vidx/v1/videos/text2video/{task_id}': { get: familyA('Query a text-to-video task', { parameters: [pathParam('task_id', 'Task id')] }, ok(envelope(taskData))) },
    '/vidx/callbacks/kling/{ref}': {
      post: { tags: ['internal'], summary: 'Receiver for upstream task callbacks (not for clients; the reference authenticates it)', security: [], parameters: [pathParam('ref', 'Opaque callback reference')], responses: { '200': ok(obj()) } },
    },

    // ---- family B (contract §4.2)
    '/v1/models': { get: familyB('List the models visible to the token', {}, ok(obj({ object: { const: 'list' }, data: arr(ref('Model')) }))) },
    '/v1/models/{model}': { get: familyB('One visible model (model_not_found otherwise)', { parameters: [pathParam('model', 'Public model name')] }, ok(ref('Model'))) },
    '/v1/chat/completions': {
      post: familyB('Chat completions (SSE when stream is true)', { requestBody: jsonBody(obj({ model: str(), messages: arr(chatMessage), stream: { type: 'boolean' } }, ['model', 'messages'])) }, {
        ...ok(obj({ choices: arr(obj()), usage })),
        content: { 'application/json': { schema: obj({ choices: arr(obj()), usage }) }, 'text/event-stream': { schema: str('server-sent chunks ending with a finish event') } },
      }),
    },
    '/v1/responses': {
      post: familyB('Responses-style call (SSE when stream is true)', { requestBody: jsonBody(obj({ model: str(), input: arr(obj({ role: str(), content: arr(obj({ type: str('input_text'), text: str() })) })), stream: { type: 'boolean' } }, ['model', 'input'])) }, ok(obj({ usage }))),
    },
    '/v1/messages': {
      post: familyB('Messages-style call (streaming and non-streaming)', {
        parameters: [{ name: 'messages-version', in: 'header', schema: str(), description: 'forwarded upstream' }, { name: 'messages-beta', in: 'header', schema: str(), description: 'forwarded upstream' }],
        requestBody: jsonBody(obj({ model: str(), max_tokens: int(), messages: arr(obj({ role: str(), content: {} })), stream: { type: 'boolean' } }, ['model', 'max_tokens', 'messages'])),
      }, ok(obj({ usage }))),
    },
    '/v1/embeddings': { post: familyB('Text vectors', { requestBody: jsonBody(obj({ model: str(), input: arr(str()) }, ['model', 'input'])) }, ok(obj({ object: str(), data: arr(obj({ embedding: arr(num()) })), usage }))) },
    '/v1/images/generations': {
      post: familyB('Text to image', { requestBody: jsonBody(obj({ model: str(), prompt: str(), size: str('<width>x<height>'), response_format: { type: 'string', enum: ['url', 'b64_json'] }, n: int() }, ['model', 'prompt'])) }, ok(obj({ data: arr(obj({ url: str(), b64_json: str() })) }))),
    },
    '/v1/images/edits': {
      post: familyB('Image editing (JSON image URLs, or multipart upload)', { requestBody: jsonBody(obj({ model: str(), prompt: str(), images: { ...arr(obj({ image_url: str() })), maxItems: 3 }, size: str(), response_format: { type: 'string', enum: ['url', 'b64_json'] }, n: int() }, ['model', 'prompt']), true) }, ok(obj({ data: arr(obj({ url: str(), b64_json: str() })) }))),
    },
    '/v1/videos': {
      post: familyB('Create an asynchronous video task', {
        requestBody: jsonBody(obj({
          model: str(), prompt: str(), seconds: { type: 'number', minimum: 2, maximum: 15 }, resolution: { type: 'string', enum: ['720p', '1080p'] },
          seed: { type: 'integer', minimum: 0, maximum: 2147483647 }, input_reference: {}, input_image: {}, references: obj({ video: arr(str()) }),
        }, ['model']), true),
      }, ok(videoTask, 'Task created')),
      get: familyB('List the token\'s video tasks, newest first', { parameters: [{ name: 'limit', in: 'query', schema: int() }, { name: 'after', in: 'query', schema: str() }] }, ok(obj({ object: { const: 'list' }, data: arr(videoTask), has_more: { type: 'boolean' } }))),
    },
    '/v1/videos/{video_id}': { get: familyB('Query a video task', { parameters: [pathParam('video_id', 'Our video id')] }, ok(videoTask)) },
    '/v1/videos/{video_id}/content': { get: familyB('Download the finished video', { parameters: [pathParam('video_id', 'Our video id')] }, ok({ type: 'string', format: 'binary' }, 'The video file', 'video/mp4')) },

    // ---- admin API (bearer TOLLWAY_ADMIN_KEY)
    '/admin/tokens': {
      post: admin('Create a client token (the secret is shown only in this answer)', {
        requestBody: jsonBody(obj({ name: str(), models: arr(str()), quota: int('micro-units; absent = unlimited'), expires_at: int('ms since the epoch') }, ['name'])),
      }, '201'),
      get: admin('List tokens (never the secret)'),
    },
    '/admin/tokens/{id}': { get: admin('One token', { parameters: [pathParam('id', 'Token id')] }), delete: admin('Revoke a token (takes effect at once)', { parameters: [pathParam('id', 'Token id')] }) },
    '/admin/channels': {
      post: admin('Add an upstream channel (keys encrypted at rest, never shown again)', {
        requestBody: jsonBody(obj({ name: str(), kind: { type: 'string', enum: ['dashscope', 'kling'] }, base_url: str(), api_key: str(), access_key: str(), secret_key: str(), models: arr(str()), priority: int(), weight: int() }, ['name', 'kind'])),
      }, '201'),
      get: admin('List channels (never the keys)'),
    },
    '/admin/channels/{id}': { delete: admin('Disable a channel', { parameters: [pathParam('id', 'Channel id')] }) },
    '/admin/channels/{id}/disable': { post: admin('Disable a channel', { parameters: [pathParam('id', 'Channel id')] }) },
    '/admin/channels/{id}/enable': { post: admin('Enable a channel', { parameters: [pathParam('id', 'Channel id')] }) },
    '/admin/audit': { get: admin('Audit log, newest first', { parameters: [{ name: 'limit', in: 'query', schema: int() }] }) },

    // ---- operations
    '/healthz': { get: { tags: ['operations'], summary: 'Liveness: 200 once the server can serve', security: [], responses: { '200': ok(obj({ status: { const: 'ok' } })) } } },
    '/openapi.json': { get: { tags: ['operations'], summary: 'This document', security: [], responses: { '200': ok(obj()) } } },
  };
}

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
      description: 'Metered model gateway: family A (/vidx/v1, vendor-style video API, envelope errors) and family B (/v1, OpenAI/messages-compatible). Every response carries X-Gateway-Request-Id.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: withRegisteredRoutes(paths(), registered),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Client token (`x-api-key` is accepted too)' },
        adminBearer: { type: 'http', scheme: 'bearer', description: 'TOLLWAY_ADMIN_KEY; client tokens are refused' },
      },
      headers: { RequestId: { description: 'Gateway request id', schema: str() } },
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
        FamilyAError: obj({ code: int('non-zero'), message: str(), request_id: str(), data: { type: 'null' } }, ['code', 'message', 'request_id', 'data']),
      },
      responses: {
        FamilyBError: { description: 'Error (family B shape)', headers: { 'X-Gateway-Request-Id': { $ref: '#/components/headers/RequestId' } }, content: { 'application/json': { schema: ref('FamilyBError') } } },
        FamilyAError: { description: 'Error (family A envelope)', headers: { 'X-Gateway-Request-Id': { $ref: '#/components/headers/RequestId' } }, content: { 'application/json': { schema: ref('FamilyAError') } } },
      },
    },
  };
  if (registered.length === 0) cached = doc;
  return doc;
}
