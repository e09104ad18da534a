// OpenAPI paths of the family B API (/v1).
import { str, int, num, arr, obj, jsonBody, ok, familyB, messagesOp, type Operation } from './schema.ts';
import { usage, chatMessage, imageResult, imageFields } from './schema-v1.ts';

export function v1Paths(): Record<string, Record<string, Operation>> {
  return {
    '/v1/chat/completions': {
      post: familyB(
        'Chat completions (SSE when stream is true), image understanding',
        {
          requestBody: jsonBody(
            obj(
              {
                model: str(),
                messages: arr(chatMessage),
                stream: { type: 'boolean', default: false },
                stream_options: obj({
                  include_usage: { type: 'boolean', description: 'forward the usage chunk to the client' },
                }),
              },
              ['model', 'messages'],
            ),
          ),
        },
        {
          ...ok(obj()),
          content: {
            'application/json': {
              schema: obj({
                id: str(),
                object: { const: 'chat.completion' },
                created: int(),
                model: str('public model name'),
                choices: arr(obj({ index: int(), message: obj({ role: str(), content: {} }), finish_reason: str() })),
                usage,
              }),
            },
            'text/event-stream': {
              schema: str(
                '`data: {chat.completion.chunk}` events ending with a finish chunk and `data: [DONE]`; a broken upstream stream ends with `data: {"error":{…}}`',
              ),
            },
          },
        },
      ),
    },
    '/v1/responses': {
      post: familyB(
        'Responses-style call (SSE when stream is true)',
        {
          requestBody: jsonBody(
            obj(
              {
                model: str(),
                input: arr(obj({ role: str(), content: arr(obj({ type: str('input_text'), text: str() })) })),
                stream: { type: 'boolean', default: false },
              },
              ['model', 'input'],
            ),
          ),
        },
        {
          ...ok(obj()),
          content: {
            'application/json': {
              schema: obj({ id: str(), object: { const: 'response' }, model: str(), output: arr(obj()), usage }),
            },
            'text/event-stream': {
              schema: str(
                '`event:`/`data:` events ending with response.completed; a broken upstream stream ends with `event: error`',
              ),
            },
          },
        },
      ),
    },
    '/v1/messages': {
      post: messagesOp(
        'Messages-style call (streaming and non-streaming); errors in the messages shape',
        {
          parameters: ['messages-version', 'messages-beta', 'anthropic-version', 'anthropic-beta'].map((name) => ({
            name,
            in: 'header',
            schema: { type: 'string', maxLength: 512, pattern: '^[\\x20-\\x7e]*$' },
            description: 'forwarded upstream (both spellings); longer or not printable: 400 invalid_request',
          })),
          requestBody: jsonBody(
            obj(
              {
                model: str(),
                max_tokens: int(),
                messages: arr(obj({ role: str(), content: {} }, ['role', 'content'])),
                system: {},
                stream: { type: 'boolean', default: false },
              },
              ['model', 'max_tokens', 'messages'],
            ),
          ),
        },
        {
          ...ok(obj()),
          content: {
            'application/json': {
              schema: obj({
                id: str(),
                type: { const: 'message' },
                role: str(),
                model: str(),
                content: arr(obj()),
                stop_reason: str(),
                usage,
              }),
            },
            'text/event-stream': {
              schema: str(
                'messages events ending with message_stop; a broken upstream stream ends with `event: error`',
              ),
            },
          },
        },
      ),
    },
    '/v1/messages/count_tokens': {
      post: messagesOp(
        'Input tokens of a messages body: a local estimate (4 characters of text a token, 258 an image or document block), not charged',
        {
          requestBody: jsonBody(
            obj(
              {
                model: str(),
                messages: arr(obj({ role: str(), content: {} }, ['role', 'content'])),
                system: {},
                tools: arr(obj()),
              },
              ['model', 'messages'],
            ),
          ),
        },
        ok(obj({ input_tokens: int() }, ['input_tokens'])),
      ),
    },
    '/v1/embeddings': {
      post: familyB(
        'Text vectors',
        {
          requestBody: jsonBody(
            obj(
              {
                model: str(),
                input: { oneOf: [str(), arr(str())] },
                encoding_format: { type: 'string', enum: ['float', 'base64'], default: 'float' },
              },
              ['model', 'input'],
            ),
          ),
        },
        ok(
          obj({
            object: { const: 'list' },
            model: str(),
            data: arr(
              obj({
                object: str(),
                index: int(),
                embedding: { oneOf: [arr(num()), str('base64 of little-endian float32')] },
              }),
            ),
            usage,
          }),
        ),
      ),
    },
    '/v1/images/generations': {
      post: familyB('Text to image', { requestBody: jsonBody(obj(imageFields, ['model', 'prompt'])) }, ok(imageResult)),
    },
    '/v1/images/edits': {
      post: familyB(
        'Image editing (JSON image URLs, or multipart upload of image / image[] files)',
        {
          requestBody: jsonBody(
            obj(
              {
                ...imageFields,
                images: {
                  ...arr(obj({ image_url: str('public http(s) URL or data:image/… URI') }, ['image_url'])),
                  maxItems: 3,
                },
              },
              ['model', 'prompt'],
            ),
            true,
          ),
        },
        ok(imageResult),
      ),
    },
  };
}
