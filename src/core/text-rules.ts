// What the text endpoints accept, checked before any upstream call: each rule answers a clear 400 in the family's
// shape. Other fields of the API or the upstream (contracts/text-fields.ts) pass through as the client wrote them.
import { imageUrlOf } from '../adapters/dashscope/multimodal-translate.ts';
import type { ResolvedModel } from '../catalogue/types.ts';
import { isObject } from '../json/json.ts';
import { GatewayError } from '../errors/gateway-error.ts';

/** Does any message carry an image (or video) part? */
export function hasImagePart(messages: unknown[]): boolean {
  for (const m of messages) {
    if (!isObject(m) || !Array.isArray(m.content)) continue;
    for (const p of m.content) if (isObject(p) && (p.type === 'image_url' || p.type === 'video_url')) return true;
  }
  return false;
}

/**
 * `body[key]`, when present, is an array of objects — each with a string `type` unless `typed` is false (an
 * Anthropic-style tool is `{name, input_schema}`): tools, content blocks. A null item would reach the upstream.
 */
function objectList(body: Record<string, unknown>, key: string, what: string, typed = true): void {
  const v = body[key];
  if (v === undefined || v === null) return;
  if (!Array.isArray(v) || !v.every((x) => isObject(x) && (!typed || typeof x.type === 'string'))) {
    throw new GatewayError(
      'invalid_parameter',
      `${key} must be an array of ${what}, each an object${typed ? ' with a type' : ''}`,
      { param: key },
    );
  }
}

export function validateChat(body: Record<string, unknown>): unknown[] {
  const messages = body.messages;
  if (messages === undefined || messages === null)
    throw new GatewayError('missing_parameter', 'messages is required', { param: 'messages' });
  if (!Array.isArray(messages) || messages.length === 0)
    throw new GatewayError('invalid_parameter', 'messages must be a non-empty array', { param: 'messages' });
  for (const m of messages) {
    if (!isObject(m) || typeof m.role !== 'string')
      throw new GatewayError('invalid_parameter', 'each message must be an object with a role', { param: 'messages' });
    const c = m.content;
    if (c !== undefined && c !== null && typeof c !== 'string' && !Array.isArray(c)) {
      throw new GatewayError('invalid_parameter', 'message content must be a string or an array of parts', {
        param: 'messages',
      });
    }
    // Image parts carry an http(s) URL or a data URI, whichever upstream path the model takes (a vision model's
    // parts go upstream as they are: a file:// or missing URL must not).
    if (Array.isArray(c)) {
      for (const p of c) {
        if (!isObject(p) || typeof p.type !== 'string')
          throw new GatewayError('invalid_parameter', 'each content part must be an object with a type', {
            param: 'messages',
          });
        if (p.type === 'image_url') imageUrlOf(p);
      }
    }
  }
  objectList(body, 'tools', 'tools');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    throw new GatewayError('invalid_parameter', 'stream must be a boolean', { param: 'stream' });
  return messages;
}

export function validateResponses(body: Record<string, unknown>): void {
  const input = body.input;
  if (input === undefined || input === null)
    throw new GatewayError('missing_parameter', 'input is required', { param: 'input' });
  if (typeof input !== 'string' && (!Array.isArray(input) || input.length === 0)) {
    throw new GatewayError('invalid_parameter', 'input must be a string or a non-empty array of items', {
      param: 'input',
    });
  }
  if (Array.isArray(input)) {
    for (const item of input) {
      if (!isObject(item))
        throw new GatewayError('invalid_parameter', 'each input item must be an object', { param: 'input' });
      const c = item.content;
      if (Array.isArray(c) && !c.every((p) => isObject(p) && typeof p.type === 'string')) {
        throw new GatewayError(
          'invalid_parameter',
          'each content part of an input item must be an object with a type',
          { param: 'input' },
        );
      }
    }
  }
  objectList(body, 'tools', 'tools');
  if (body.background === true)
    throw new GatewayError('invalid_parameter', 'background responses are not supported', { param: 'background' });
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    throw new GatewayError('invalid_parameter', 'stream must be a boolean', { param: 'stream' });
}

export function validateMessages(body: Record<string, unknown>): void {
  if (body.max_tokens === undefined || body.max_tokens === null)
    throw new GatewayError('missing_parameter', 'max_tokens is required', { param: 'max_tokens' });
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    throw new GatewayError('invalid_parameter', 'max_tokens must be a positive integer', { param: 'max_tokens' });
  }
  validateMessageList(body);
  const system = body.system;
  if (system !== undefined && system !== null && typeof system !== 'string') objectList(body, 'system', 'text blocks');
  objectList(body, 'tools', 'tools', false);
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    throw new GatewayError('invalid_parameter', 'stream must be a boolean', { param: 'stream' });
}

/** The messages of a messages-style body (a call, or a count of its tokens): each with a role and a content. */
export function validateMessageList(body: Record<string, unknown>): unknown[] {
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw new GatewayError('invalid_parameter', 'messages must be a non-empty array', { param: 'messages' });
  // Each item has a role and a content (a string or an array of content blocks).
  for (const m of body.messages) {
    if (!isObject(m) || typeof m.role !== 'string' || m.role === '')
      throw new GatewayError('invalid_parameter', 'each message must be an object with a role', { param: 'messages' });
    if (typeof m.content !== 'string' && !Array.isArray(m.content))
      throw new GatewayError(
        'invalid_parameter',
        'each message needs a content: a string or an array of content blocks',
        { param: 'messages' },
      );
    if (Array.isArray(m.content) && !m.content.every((b) => isObject(b) && typeof b.type === 'string')) {
      throw new GatewayError('invalid_parameter', 'each content block must be an object with a type', {
        param: 'messages',
      });
    }
  }
  return body.messages;
}

export function validateEmbeddings(body: Record<string, unknown>): void {
  const input = body.input;
  if (input === undefined || input === null)
    throw new GatewayError('missing_parameter', 'input is required', { param: 'input' });
  const ok =
    typeof input === 'string'
      ? input.length > 0
      : Array.isArray(input) && input.length > 0 && input.every((s) => typeof s === 'string' && s.length > 0);
  if (!ok)
    throw new GatewayError(
      'invalid_parameter',
      'input must be a non-empty string or a non-empty array of non-empty strings',
      { param: 'input' },
    );
  const dim = body.dimensions;
  if (dim !== undefined && dim !== null && (typeof dim !== 'number' || !Number.isSafeInteger(dim) || dim < 1)) {
    throw new GatewayError('invalid_parameter', 'dimensions must be a positive integer', { param: 'dimensions' });
  }
  const ef = body.encoding_format;
  if (ef !== undefined && ef !== null && ef !== 'float' && ef !== 'base64')
    throw new GatewayError('invalid_parameter', 'encoding_format must be float or base64', {
      param: 'encoding_format',
    });
  // Embeddings never stream: say so rather than answer JSON to a client that asked for events.
  if (body.stream !== undefined && body.stream !== null && body.stream !== false)
    throw new GatewayError('invalid_parameter', 'embeddings do not stream; remove stream', { param: 'stream' });
}

/**
 * Which upstream path a chat call takes: image parts on a chat model that also takes images go to the multimodal
 * path ('vision'); a vision model takes them on the compatible-mode path as they are ('chat').
 */
export function chatCapability(r: ResolvedModel, messages: unknown[]): 'chat' | 'vision' {
  const entry = r.entry;
  if (!hasImagePart(messages)) return 'chat';
  if (entry.kind === 'vision') return 'chat';
  if (!entry.capabilities.imageInput)
    throw new GatewayError('model_not_supported', `The model '${r.publicName}' does not take image input`, {
      param: 'messages',
    });
  return 'vision';
}
