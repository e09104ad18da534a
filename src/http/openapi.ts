// GET /openapi.json: an OpenAPI 3.1 description of every contract path (family A and B), the admin
// API and /healthz. As the contract says, request and response bodies are free-form objects; the
// documented fields are listed as properties (additionalProperties stays open).
import type { Family } from '../errors/render.ts';
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

// Every status a code in src/errors/codes.ts can have.
const FAMILY_B_ERROR_STATUSES = ['400', '401', '403', '404', '405', '409', '410', '413', '415', '422', '429', '500', '502', '503', '504'];
const FAMILY_A_ERROR_STATUSES = FAMILY_B_ERROR_STATUSES;

function errorResponses(family: Family): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of family === 'vidx' ? FAMILY_A_ERROR_STATUSES : FAMILY_B_ERROR_STATUSES) {
    out[s] = { $ref: `#/components/responses/${family === 'vidx' ? 'FamilyAError' : 'FamilyBError'}` };
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
const query = (name: string, schema: Schema, description: string) => ({ name, in: 'query', required: false, schema, description });
const PAGE = [
  query('pageNum', { type: 'integer', minimum: 1, maximum: 1000, default: 1 }, 'Page number'),
  query('pageSize', { type: 'integer', minimum: 1, maximum: 500, default: 30 }, 'Tasks per page'),
];

function familyB(summary: string, op: Omit<Operation, 'summary'>, okResponse: unknown): Operation {
  return { tags: ['family B (/v1)'], summary, security: [{ bearer: [] }], ...op, responses: { '200': okResponse, ...errorResponses('v1') } };
}
function familyA(summary: string, op: Omit<Operation, 'summary'>, okResponse: unknown): Operation {
  return { tags: ['family A (/vidx/v1)'], summary, security: [{ bearer: [] }], ...op, responses: { '200': okResponse, ...errorResponses('vidx') } };
}
function admin(summary: string, op: Omit<Operation, 'summary'> = {}, okSchema: Schema = obj(), status = '200', okResponse?: unknown): Operation {
  return { tags: ['admin'], summary, security: [{ adminBearer: [] }], ...op, responses: { [status]: okResponse ?? ok(okSchema), ...errorResponses('v1') } };
}

const envelope = (data: Schema): Schema => obj({ code: int('0 on success'), message: str('`success` on success'), request_id: str(), data }, ['code', 'message', 'request_id']);
const taskStatus: Schema = { type: 'string', enum: ['submitted', 'processing', 'succeed', 'failed'] };
const taskInfo = obj({ external_task_id: str('the caller\'s external_task_id, when given') });
// Contract 2.3: the creation reply's data.
const taskData = obj({ task_id: str('Our task id (task_…)'), task_status: taskStatus, task_info: taskInfo, created_at: int('ms'), updated_at: int('ms') }, ['task_id', 'task_status', 'created_at', 'updated_at']);
const resultVideo = obj({ id: str('Our video id (video_<task>_<n>)'), url: str(), watermark_url: str(), duration: str('seconds'), session_id: str('edit tasks') });
// Query, list item and callback body: the creation fields plus the task's state and result (ids ours, model canonical).
const taskQueryData = obj({
  task_id: str(),
  task_status: taskStatus,
  task_status_msg: str('why the task failed (sanitised); empty otherwise'),
  task_info: taskInfo,
  model_name: str('canonical public model name'),
  session_id: str('edit tasks: our session id'),
  watermark_info: obj(),
  task_result: obj({ videos: arr(resultVideo, 'on succeed') }),
  created_at: int('ms'),
  updated_at: int('ms'),
}, ['task_id', 'task_status', 'created_at', 'updated_at']);
const point = obj({ x: num('in [0, 1]'), y: num('in [0, 1]') }, ['x', 'y']);
const selection = obj({ session_id: str(), frame_index: { type: 'integer', minimum: 0, description: 'frame number' }, points: { ...arr(point), minItems: 1, maxItems: 10 } }, ['session_id', 'frame_index', 'points']);
const selectionData = (res?: Schema): Schema => obj({ status: int('0 = accepted'), session_id: str('our session id'), ...(res ? { res } : {}) });
const rleMask = obj({ object_id: int(), rle_mask: obj({ size: arr(int(), '[height, width]'), counts: str('COCO-style compressed RLE') }), png_mask: obj({ size: arr(int()), base64: str() }) });
const modeEnum = (def: 'std' | 'pro'): Schema => ({ type: 'string', enum: ['std', 'pro'], default: def });
const usage = obj({ prompt_tokens: int(), completion_tokens: int(), input_tokens: int(), output_tokens: int(), total_tokens: int(), prompt_tokens_details: obj({ cached_tokens: int(), cache_creation_input_tokens: int() }), input_tokens_details: obj({ cached_tokens: int() }), cache_read_input_tokens: int(), cache_creation_input_tokens: int() });
const chatMessage = obj({ role: str(), content: { oneOf: [str(), arr(obj({ type: str('text | image_url'), text: str(), image_url: obj({ url: str('http(s) URL or data:image/… URI') }) }))] } }, ['role', 'content']);
const videoStatus: Schema = { type: 'string', enum: ['queued', 'in_progress', 'processing', 'completed', 'success', 'failed', 'cancelled'], description: 'clients should accept every value listed' };
const videoTask = obj({
  id: str('equals video_id'),
  video_id: str('our video id, never the upstream\'s'),
  object: { const: 'video' },
  model: str(),
  status: videoStatus,
  progress: int('0–100'),
  created_at: int('unix seconds'),
  completed_at: { type: ['integer', 'null'], description: 'unix seconds' },
  expires_at: { type: ['integer', 'null'], description: 'unix seconds: when the result URL expires' },
  url: str('result URL, once completed'),
  prompt: { type: ['string', 'null'] },
  seconds: { type: ['string', 'null'] },
  size: { type: ['string', 'null'] },
  resolution: { type: ['string', 'null'] },
  error: { oneOf: [{ type: 'null' }, obj({ code: str(), message: str('sanitised') })] },
  upstream_request_id: str(),
}, ['id', 'video_id', 'object', 'status']);
const imageResult = obj({ created: int('unix seconds'), data: arr(obj({ url: str(), b64_json: str() })), size: str('<width>x<height>'), usage: obj({ images: int('images returned (and charged)') }) });
const imageFields = {
  model: str(),
  prompt: str(),
  size: str('<width>x<height>, 512x512 to 2048x2048 pixels; omitted or `auto` = upstream default'),
  response_format: { type: 'string', enum: ['url', 'b64_json'], default: 'url' },
  n: { type: 'integer', minimum: 1, maximum: 6, default: 1 },
  negative_prompt: str(),
  seed: { type: 'integer', minimum: 0, maximum: 2147483647 },
  watermark: { type: 'boolean', default: false },
  prompt_extend: { type: 'boolean' },
};

// ---- admin: metering and billing (README "Metering and billing")
const micro = (description = 'integer micro-units (1 unit = 1,000,000)'): Schema => ({ type: 'integer', minimum: 0, description });
const timeParam = (name: 'since' | 'until') =>
  query(name, str(), `${name === 'since' ? 'Inclusive lower' : 'Exclusive upper'} bound on created_at: milliseconds since the epoch or an ISO 8601 date/date-time (UTC unless a zone is given)`);
const limitParam = query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Rows per page');
const tokenPriceTier = obj({ maxInputTokens: { type: ['integer', 'null'], description: 'inclusive bound on the request\'s total input tokens; null = no bound' }, inputPer1k: micro(), outputPer1k: micro(), cachedInputPer1k: micro(), cacheCreationPer1k: micro() }, ['maxInputTokens', 'inputPer1k', 'outputPer1k']);
const price: Schema = {
  description: 'A price, all amounts integer micro-units; an override keeps the model\'s unit',
  oneOf: [
    obj({ unit: { const: 'tokens' }, tiers: arr(tokenPriceTier) }, ['unit', 'tiers']),
    obj({ unit: { const: 'image' }, perImage: micro() }, ['unit', 'perImage']),
    obj({ unit: { const: 'video-second' }, perSecond: obj({ '720p': micro(), '1080p': micro() }, ['720p', '1080p']), basis: { type: 'string', enum: ['output', 'input+output'] } }, ['unit', 'perSecond']),
    obj({ unit: { const: 'video-mode-second' }, perSecond: obj({ std: micro(), pro: micro() }, ['std', 'pro']) }, ['unit', 'perSecond']),
  ],
};
const priceView = obj({
  model: str(),
  kind: str(),
  owned_by: str(),
  price,
  default_resolution: str('video models'),
  snapshots: { type: 'boolean', description: 'dated snapshots resolve to this model' },
  aliases: arr(str()),
  hidden: { type: 'boolean' },
  price_overridden: { type: 'boolean', description: 'an admin override is stored' },
}, ['model', 'kind', 'price', 'price_overridden']);
const ledgerEntry = obj({
  id: int(),
  idempotency_key: str('request id (synchronous calls) or <task id>:success'),
  token_id: str(),
  model: str('billing model'),
  kind: str(),
  quantities: obj(),
  unit_prices: obj(),
  amount: micro(),
  request_id: { type: ['string', 'null'] },
  task_id: { type: ['string', 'null'], description: 'the public task id the client was given' },
  upstream_request_id: { type: ['string', 'null'] },
  created_at: int('ms'),
}, ['id', 'idempotency_key', 'token_id', 'model', 'kind', 'amount', 'created_at']);
const requestLogEntry = obj({
  request_id: str(),
  token_id: { type: ['string', 'null'] },
  model: { type: ['string', 'null'] },
  endpoint: str(),
  method: str(),
  status: int('HTTP status'),
  latency_ms: int(),
  usage: {},
  amount: micro('micro-units computed on the request path (the ledger is the authority)'),
  upstream_request_id: { type: ['string', 'null'] },
  error_code: { type: ['string', 'null'] },
  created_at: int('ms'),
}, ['request_id', 'endpoint', 'method', 'status', 'latency_ms', 'amount', 'created_at']);
const billLine = obj({
  token_id: str(),
  token_name: { type: ['string', 'null'] },
  period: { type: 'string', enum: ['day', 'month'] },
  period_start: str('UTC label: YYYY-MM-DD or YYYY-MM'),
  entries: int(),
  amount: micro(),
  amount_units: str('the amount as an exact decimal string of units'),
  models: { type: 'object', additionalProperties: obj({ entries: int(), amount: micro() }) },
}, ['token_id', 'period', 'period_start', 'entries', 'amount', 'amount_units']);
const auditEntry = obj({ id: int(), at: int('ms'), actor: str(), action: str('token.create, channel.disable, price.set, …'), target: { type: ['string', 'null'] }, detail: {}, request_id: { type: ['string', 'null'] } });
const tokenView = obj({
  id: str(), name: str(), prefix: str('first characters of the secret'), models: { type: ['array', 'null'], items: str() }, quota: { type: ['integer', 'null'], description: 'micro-units; null = unlimited' },
  spent: micro(), held: micro(), rpm_limit: { type: ['integer', 'null'] }, concurrency_limit: { type: ['integer', 'null'] },
  expires_at: { type: ['integer', 'null'], description: 'ms' }, revoked_at: { type: ['integer', 'null'], description: 'ms' }, created_at: int('ms'),
});
const channelView = obj({
  id: str(), name: str(), kind: { type: 'string', enum: ['dashscope', 'kling'] }, base_url: str(), models: { type: ['array', 'null'], items: str() },
  status: { type: 'string', enum: ['enabled', 'disabled'] }, priority: int(), weight: int(), created_at: int('ms'), updated_at: int('ms'),
});
const modelParam = pathParam('model', 'Public model name (an alias or dated snapshot means its base model)');

function paths(): Record<string, Record<string, Operation>> {
  const taskIdParam = [pathParam('task_id', 'Our task id, or the caller\'s external_task_id')];
  return {
    // ---- family A (contract §4.1)
    '/vidx/v1/videos/text2video': {
      post: familyA('Create a text-to-video task', {
        requestBody: jsonBody(obj({
          model_name: { type: 'string', default: 'vidx-v1', enum: ['vidx-video-o1', 'vidx-v1', 'vidx-v1-5', 'vidx-v1-6', 'vidx-v2-master', 'vidx-v2-1', 'vidx-v2-1-master', 'vidx-v2-5-turbo', 'vidx-v2-6', 'vidx-v3', 'vidx-v2-5'], description: '`vidx-v2-5` is normalised to `vidx-v2-5-turbo`; `vidx-v3-omni` belongs on /omni-video' },
          prompt: { type: 'string', maxLength: 2500 },
          negative_prompt: str(),
          cfg_scale: { type: 'number', minimum: 0, maximum: 1, description: 'vidx-v1, vidx-v1-5, vidx-v1-6 only' },
          sound: { type: 'string', enum: ['on', 'off'], description: 'vidx-v2-6 only' },
          mode: modeEnum('std'),
          camera_control: obj({
            type: { type: 'string', enum: ['simple', 'down_back', 'forward_up', 'right_turn_forward', 'left_turn_forward'] },
            config: { ...obj({ horizontal: num(), vertical: num(), pan: num(), tilt: num(), roll: num(), zoom: num() }), description: 'required for (and only with) type simple; each in [-10, 10], exactly one non-zero' },
          }),
          aspect_ratio: { type: 'string', enum: ['16:9', '9:16', '1:1'], default: '16:9' },
          duration: { type: 'string', enum: ['5', '10'], default: '5', description: 'a string; the JSON number 5 is refused' },
          watermark_info: obj({ enabled: { type: 'boolean' } }),
          callback_url: str('notified (signed) once the task is succeed or failed'),
          external_task_id: str('idempotency per token and endpoint'),
        }, ['prompt'])),
      }, ok(envelope(taskData), 'Task created')),
      get: familyA('List the caller\'s text-to-video tasks, newest first', { parameters: PAGE }, ok(envelope(arr(taskQueryData)))),
    },
    '/vidx/v1/videos/multi-elements/init-selection': {
      post: familyA('Initialise a video for multi-element editing', {
        requestBody: jsonBody(obj({ video_id: str('exactly one of video_id (one of our video ids) / video_url'), video_url: str('http(s) URL of an mp4/mov') })),
      }, ok(envelope(obj({ status: int(), session_id: str('valid 24 hours'), fps: num(), original_duration: num(), width: int(), height: int(), total_frame: int(), normalized_video: str() })))),
    },
    '/vidx/v1/videos/multi-elements/add-selection': { post: familyA('Add a selected area', { requestBody: jsonBody(selection) }, ok(envelope(selectionData(obj({ frame_index: int(), rle_mask_list: arr(rleMask) }))))) },
    '/vidx/v1/videos/multi-elements/delete-selection': { post: familyA('Remove a selected area (points must match the added ones)', { requestBody: jsonBody(selection) }, ok(envelope(selectionData(obj({ frame_index: int(), rle_mask_list: arr(rleMask) }))))) },
    '/vidx/v1/videos/multi-elements/clear-selection': { post: familyA('Clear the selection', { requestBody: jsonBody(obj({ session_id: str() }, ['session_id'])) }, ok(envelope(selectionData()))) },
    '/vidx/v1/videos/multi-elements/preview-selection': {
      post: familyA('Preview the selection', { requestBody: jsonBody(obj({ session_id: str() }, ['session_id'])) }, ok(envelope(selectionData(obj({ video: str('preview video with the mask marker'), video_cover: str('cover image'), tracking_output: str() }))))),
    },
    '/vidx/v1/videos/multi-elements': {
      post: familyA('Create a multi-element edit task', {
        requestBody: jsonBody(obj({
          model_name: { type: 'string', enum: ['vidx-v1-6'], default: 'vidx-v1-6' },
          session_id: str('from init-selection; valid 24 hours'),
          edit_mode: { type: 'string', enum: ['addition', 'swap', 'removal'] },
          image_list: { ...arr(obj({ image: str('image URL') }, ['image'])), description: 'addition: 1–2 images; swap: exactly 1; removal: none' },
          prompt: { type: 'string', maxLength: 2500 },
          negative_prompt: str(),
          mode: modeEnum('std'),
          duration: { type: 'string', enum: ['5', '10'], default: '5' },
          watermark_info: obj({ enabled: { type: 'boolean' } }),
          callback_url: str(),
          external_task_id: str(),
        }, ['session_id', 'edit_mode', 'prompt'])),
      }, ok(envelope(taskData), 'Task created')),
      get: familyA('List the caller\'s multi-element edit tasks, newest first', { parameters: PAGE }, ok(envelope(arr(taskQueryData)))),
    },
    '/vidx/v1/videos/multi-elements/{task_id}': {
      get: familyA('Query a multi-element edit task', { parameters: taskIdParam }, ok(envelope(taskQueryData))),
    },
    '/vidx/v1/videos/omni-video': {
      post: familyA('Create an omni-video task (the vendor body is passed through)', {
        requestBody: jsonBody(obj({
          model_name: { type: 'string', enum: ['vidx-v3-omni', 'vidx-video-o1'], default: 'vidx-v3-omni' },
          prompt: { type: 'string', maxLength: 2500 },
          image_list: arr(obj({ image_url: str(), type: { type: 'string', enum: ['first_frame', 'end_frame'] } })),
          element_list: arr(obj({ element_id: {} })),
          video_list: { ...arr(obj({ video_url: str(), refer_type: { type: 'string', enum: ['base', 'feature'] }, keep_original_sound: { type: 'string', enum: ['yes', 'no'] } })), maxItems: 1 },
          sound: { type: 'string', enum: ['on', 'off'] },
          mode: modeEnum('pro'),
          aspect_ratio: str(),
          duration: { type: 'string', enum: ['3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15'], default: '5' },
          watermark_info: obj({ enabled: { type: 'boolean' } }),
          callback_url: str(),
          external_task_id: str(),
        }, ['prompt'])),
      }, ok(envelope(taskData), 'Task created')),
      get: familyA('List the caller\'s omni-video tasks, newest first', { parameters: PAGE }, ok(envelope(arr(taskQueryData)))),
    },
    // Beyond the contract table: the query/list routes the vendor API has for the other task kinds.
    '/vidx/v1/videos/omni-video/{task_id}': { get: familyA('Query an omni-video task', { parameters: taskIdParam }, ok(envelope(taskQueryData))) },
    '/vidx/v1/videos/text2video/{task_id}': { get: familyA('Query a text-to-video task', { parameters: taskIdParam }, ok(envelope(taskQueryData))) },
    '/vidx/callbacks/kling/{ref}': {
      post: { tags: ['internal'], summary: 'Receiver for upstream task callbacks (not for clients; the reference authenticates it)', security: [], parameters: [pathParam('ref', 'Opaque callback reference')], responses: { '200': ok(obj()) } },
    },

    // ---- family B (contract §4.2)
    '/v1/models': { get: familyB('List the models visible to the token', {}, ok(obj({ object: { const: 'list' }, data: arr(ref('Model')) }))) },
    '/v1/models/{model}': { get: familyB('One visible model (model_not_found otherwise)', { parameters: [pathParam('model', 'Public model name')] }, ok(ref('Model'))) },
    '/v1/chat/completions': {
      post: familyB('Chat completions (SSE when stream is true), image understanding', {
        requestBody: jsonBody(obj({ model: str(), messages: arr(chatMessage), stream: { type: 'boolean', default: false }, stream_options: obj({ include_usage: { type: 'boolean', description: 'forward the usage chunk to the client' } }) }, ['model', 'messages'])),
      }, {
        ...ok(obj()),
        content: {
          'application/json': { schema: obj({ id: str(), object: { const: 'chat.completion' }, created: int(), model: str('public model name'), choices: arr(obj({ index: int(), message: obj({ role: str(), content: {} }), finish_reason: str() })), usage }) },
          'text/event-stream': { schema: str('`data: {chat.completion.chunk}` events ending with a finish chunk and `data: [DONE]`; a broken upstream stream ends with `data: {"error":{…}}`') },
        },
      }),
    },
    '/v1/responses': {
      post: familyB('Responses-style call (SSE when stream is true)', {
        requestBody: jsonBody(obj({ model: str(), input: arr(obj({ role: str(), content: arr(obj({ type: str('input_text'), text: str() })) })), stream: { type: 'boolean', default: false } }, ['model', 'input'])),
      }, {
        ...ok(obj()),
        content: {
          'application/json': { schema: obj({ id: str(), object: { const: 'response' }, model: str(), output: arr(obj()), usage }) },
          'text/event-stream': { schema: str('`event:`/`data:` events ending with response.completed; a broken upstream stream ends with `event: error`') },
        },
      }),
    },
    '/v1/messages': {
      post: familyB('Messages-style call (streaming and non-streaming)', {
        parameters: ['messages-version', 'messages-beta', 'anthropic-version', 'anthropic-beta'].map((name) => ({ name, in: 'header', schema: str(), description: 'forwarded upstream' })),
        requestBody: jsonBody(obj({ model: str(), max_tokens: int(), messages: arr(obj({ role: str(), content: {} }, ['role', 'content'])), system: {}, stream: { type: 'boolean', default: false } }, ['model', 'max_tokens', 'messages'])),
      }, {
        ...ok(obj()),
        content: {
          'application/json': { schema: obj({ id: str(), type: { const: 'message' }, role: str(), model: str(), content: arr(obj()), stop_reason: str(), usage }) },
          'text/event-stream': { schema: str('messages events ending with message_stop; a broken upstream stream ends with `event: error`') },
        },
      }),
    },
    '/v1/embeddings': {
      post: familyB('Text vectors', {
        requestBody: jsonBody(obj({ model: str(), input: { oneOf: [str(), arr(str())] }, encoding_format: { type: 'string', enum: ['float', 'base64'], default: 'float' } }, ['model', 'input'])),
      }, ok(obj({ object: { const: 'list' }, model: str(), data: arr(obj({ object: str(), index: int(), embedding: { oneOf: [arr(num()), str('base64 of little-endian float32')] } })), usage }))),
    },
    '/v1/images/generations': {
      post: familyB('Text to image', { requestBody: jsonBody(obj(imageFields, ['model', 'prompt'])) }, ok(imageResult)),
    },
    '/v1/images/edits': {
      post: familyB('Image editing (JSON image URLs, or multipart upload of image / image[] files)', {
        requestBody: jsonBody(obj({ ...imageFields, images: { ...arr(obj({ image_url: str('public http(s) URL or data:image/… URI') }, ['image_url'])), maxItems: 3 } }, ['model', 'prompt']), true),
      }, ok(imageResult)),
    },
    '/v1/videos': {
      post: familyB('Create an asynchronous video task', {
        requestBody: jsonBody(obj({
          model: str(), prompt: str(),
          seconds: { type: ['integer', 'string'], minimum: 2, maximum: 15, description: '2–15 (hhx: 3–15, per-model maximum); a decimal string is accepted' },
          resolution: { type: 'string', enum: ['720p', '1080p'], description: 'hhx-1.1 defaults to 1080p' },
          size: str('<width>x<height>: implies the tier and ratio when resolution is absent'),
          seed: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'only for models with a fixed seed; a JSON number' },
          input_reference: { description: 'image (or video for wnx2.7-i2v) reference: URL string, {image_url}, or an array' },
          input_image: { description: 'alternative to input_reference for hhx-1.1-i2v / hhx-1.0-i2v' },
          references: obj({ video: arr(str('.mp4 / .mov URL')) }),
        }, ['model']), true),
      }, ok(videoTask, 'Task created')),
      get: familyB('List the token\'s video tasks, newest first', {
        parameters: [query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'Videos per page'), query('after', str(), 'A video id: list the ones created before it')],
      }, ok(obj({ object: { const: 'list' }, data: arr(videoTask), first_id: { type: ['string', 'null'] }, last_id: { type: ['string', 'null'] }, has_more: { type: 'boolean' } }))),
    },
    '/v1/videos/{video_id}': { get: familyB('Query a video task', { parameters: [pathParam('video_id', 'Our video id')] }, ok(videoTask)) },
    '/v1/videos/{video_id}/content': {
      get: familyB('Download the finished video (409 video_not_ready before; Range supported)', {
        parameters: [pathParam('video_id', 'Our video id'), { name: 'Range', in: 'header', schema: str(), description: 'passed through (206)' }],
      }, ok({ type: 'string', format: 'binary' }, 'The video file', 'video/mp4')),
    },

    // ---- admin API (bearer TOLLWAY_ADMIN_KEY)
    '/admin/tokens': {
      post: admin('Create a client token (the secret is shown only in this answer)', {
        requestBody: jsonBody(obj({
          name: str(), models: arr(str(), 'allow-list of public model names; absent = every model'), quota: micro('micro-units; absent = unlimited'), expires_at: int('ms since the epoch, in the future'),
          rpm_limit: { type: 'integer', minimum: 1, maximum: 1000000 }, concurrency_limit: { type: 'integer', minimum: 1, maximum: 100000 },
        }, ['name'])),
      }, obj({ id: str(), name: str(), token: str('the secret, shown once'), models: { type: ['array', 'null'], items: str() }, quota: { type: ['integer', 'null'] }, expires_at: { type: ['integer', 'null'] }, created_at: int('ms') }), '201'),
      get: admin('List tokens (never the secret)', {}, obj({ data: arr(tokenView) })),
    },
    '/admin/tokens/{id}': {
      get: admin('One token', { parameters: [pathParam('id', 'Token id')] }, tokenView),
      delete: admin('Revoke a token (takes effect at once)', { parameters: [pathParam('id', 'Token id')] }, tokenView),
    },
    '/admin/channels': {
      post: admin('Add an upstream channel (keys encrypted at rest, never shown again)', {
        requestBody: jsonBody(obj({
          name: str(), kind: { type: 'string', enum: ['dashscope', 'kling'] }, base_url: str('Beijing region only'), api_key: str('dashscope'), access_key: str('kling'), secret_key: str('kling'),
          models: arr(str()), priority: { type: 'integer', minimum: -1000, maximum: 1000 }, weight: { type: 'integer', minimum: 1, maximum: 1000 },
        }, ['name', 'kind'])),
      }, channelView, '201'),
      get: admin('List channels (never the keys)', {}, obj({ data: arr(channelView) })),
    },
    '/admin/channels/{id}': { delete: admin('Disable a channel', { parameters: [pathParam('id', 'Channel id')] }, channelView) },
    '/admin/channels/{id}/disable': { post: admin('Disable a channel', { parameters: [pathParam('id', 'Channel id')] }, channelView) },
    '/admin/channels/{id}/enable': { post: admin('Enable a channel', { parameters: [pathParam('id', 'Channel id')] }, channelView) },
    '/admin/audit': {
      get: admin('Audit log: every admin action, newest first', { parameters: [query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Entries to return')] }, obj({ data: arr(auditEntry) })),
    },
    '/admin/ledger': {
      get: admin('Ledger entries (the billing authority), newest first; queued charges are flushed first', {
        parameters: [
          query('token_id', str(), 'Only this token'),
          query('model', str(), 'Only this billing model'),
          query('request_id', str(), 'Only this request'),
          query('task_id', str(), 'Only this task (the public id the client was given)'),
          timeParam('since'),
          timeParam('until'),
          limitParam,
          query('before_id', { type: 'integer', minimum: 1 }, 'Page on: entries with a smaller id (next_before_id of the previous page)'),
        ],
      }, obj({ data: arr(ledgerEntry), has_more: { type: 'boolean' }, next_before_id: int('present when has_more') }, ['data', 'has_more'])),
    },
    '/admin/logs': {
      get: admin('Request log (one row per request), newest first', {
        parameters: [
          query('request_id', str(), 'Only this request'),
          query('token_id', str(), 'Only this token'),
          query('model', str(), 'Only this public model'),
          timeParam('since'),
          timeParam('until'),
          limitParam,
          query('before', { type: 'integer', minimum: 1 }, 'Page on: rows created before this time (ms)'),
        ],
      }, obj({ data: arr(requestLogEntry), has_more: { type: 'boolean' } }, ['data', 'has_more'])),
    },
    '/admin/bills': {
      get: admin('Bills: ledger totals per token per UTC day or month', {
        parameters: [
          query('token_id', str(), 'Only this token'),
          query('model', str(), 'Only this billing model'),
          query('period', { type: 'string', enum: ['day', 'month'], default: 'month' }, 'UTC day or month'),
          timeParam('since'),
          timeParam('until'),
          query('format', { type: 'string', enum: ['json', 'csv'], default: 'json' }, 'csv: RFC 4180 with a header row'),
        ],
      }, obj(), '200', {
        ...ok(obj()),
        content: {
          'application/json': { schema: obj({ object: { const: 'bill' }, period: { type: 'string', enum: ['day', 'month'] }, unit: str(), data: arr(billLine), total: obj({ entries: int(), amount: micro(), amount_units: str() }) }, ['object', 'period', 'data', 'total']) },
          'text/csv': { schema: str('header: token_id,token_name,period,period_start,entries,amount_micro,amount_units') },
        },
      }),
    },
    '/admin/prices': {
      get: admin('Every model with its live price (micro-units)', {}, obj({ object: { const: 'list' }, unit: str(), data: arr(priceView) }, ['object', 'data'])),
    },
    '/admin/prices/{model}': {
      get: admin('One model\'s live price', { parameters: [modelParam] }, priceView),
      put: admin('Override a model\'s price (applied at once, audited)', {
        parameters: [modelParam],
        requestBody: jsonBody({ description: 'the price object, or {"price": {...}}; the unit must stay the model\'s', oneOf: [price, obj({ price }, ['price'])] }),
      }, priceView),
      delete: admin('Drop the stored override (back to the file/built-in price)', { parameters: [modelParam] }, priceView),
    },

    // ---- operations
    '/healthz': { get: { tags: ['operations'], summary: 'Liveness: 200 once the server and its database can serve', security: [], responses: { '200': ok(obj({ status: { const: 'ok' } })), '503': { $ref: '#/components/responses/FamilyBError' } } } },
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
      description: 'Metered model gateway: family A (/vidx/v1, vendor-style video API, envelope errors) and family B (/v1, OpenAI/messages-compatible). Every response carries X-Gateway-Request-Id. JSON bodies may nest arrays and objects at most 256 levels deep (deeper: 400 invalid_request).',
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
