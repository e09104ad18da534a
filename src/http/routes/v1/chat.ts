// POST /v1/chat/completions — text and image understanding, streaming and not.
// Routing of image input: a vision model (qwx3-vl-plus) takes image_url parts on the compatible-mode path as
// they are (the upstream documents image_url for VL models there, and that path streams usage natively);
// a chat model that also takes images (qwx3.7-plus) is sent to the native multimodal path when a request
// carries an image, and its answer is translated back to the chat-completions shape.
import type { TextRequest } from '../../../adapters/types.ts';
import type { UpstreamAdapter } from '../../../adapters/types.ts';
import { imageUrlOf } from '../../../adapters/dashscope/multimodal-translate.ts';
import { isObject, requireBody, type JsonObject } from '../../../contracts/fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { AppDeps } from '../../deps.ts';
import type { Exchange } from '../../exchange.ts';
import { chatErrorFrame, isKind, prepare, sendComplete, sendStream, type Prepared } from './text-call.ts';

/** Does any message carry an image (or video) part? */
export function hasImagePart(messages: unknown[]): boolean {
  for (const m of messages) {
    if (!isObject(m) || !Array.isArray(m.content)) continue;
    for (const p of m.content) if (isObject(p) && (p.type === 'image_url' || p.type === 'video_url')) return true;
  }
  return false;
}

function validate(body: Record<string, unknown>): unknown[] {
  const messages = body.messages;
  if (messages === undefined || messages === null) throw new GatewayError('missing_parameter', 'messages is required', { param: 'messages' });
  if (!Array.isArray(messages) || messages.length === 0) throw new GatewayError('invalid_parameter', 'messages must be a non-empty array', { param: 'messages' });
  for (const m of messages) {
    if (!isObject(m) || typeof m.role !== 'string') throw new GatewayError('invalid_parameter', 'each message must be an object with a role', { param: 'messages' });
    const c = m.content;
    if (c !== undefined && c !== null && typeof c !== 'string' && !Array.isArray(c)) {
      throw new GatewayError('invalid_parameter', 'message content must be a string or an array of parts', { param: 'messages' });
    }
    // Image parts carry an http(s) URL or a data URI, whichever upstream path the model takes (a vision model's
    // parts go upstream as they are: a file:// or missing URL must not).
    if (Array.isArray(c)) {
      for (const p of c) {
        if (!isObject(p) || typeof p.type !== 'string') throw new GatewayError('invalid_parameter', 'each content part must be an object with a type', { param: 'messages' });
        if (p.type === 'image_url') imageUrlOf(p);
      }
    }
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw new GatewayError('invalid_parameter', 'stream must be a boolean', { param: 'stream' });
  return messages;
}

export function chatRoute(deps: AppDeps, ds: Required<Pick<UpstreamAdapter, 'chat' | 'visionChat'>>): (req: Exchange) => Promise<void> {
  const isChat = isKind('chat', 'vision');
  // Not an async function: a token without a quota is prepared synchronously, and the call's own promise is the
  // answer (one promise layer less per request). The lane turns a synchronous throw into the same error answer.
  return (req) => {
    const body = requireBody(req.body);
    const messages = validate(body);
    const prepared = prepare(deps, req, body, isChat, 'chat completions');
    if (prepared instanceof Promise) return prepared.then((prep) => call(req, body, messages, prep));
    return call(req, body, messages, prepared);
  };

  function call(req: Exchange, body: JsonObject, messages: unknown[], prep: Prepared): Promise<void> {
    const image = hasImagePart(messages);
    const entry = prep.r.entry;
    if (image && !entry.capabilities.imageInput && entry.kind !== 'vision') {
      throw new GatewayError('model_not_supported', `The model '${prep.r.publicName}' does not take image input`, { param: 'messages' });
    }
    const cap = image && entry.kind !== 'vision' ? ds.visionChat : ds.chat;
    const so = body.stream_options;
    const treq: TextRequest = {
      body,
      upstreamModel: prep.r.upstreamModel,
      publicModel: prep.r.publicName,
      clientWantsUsage: isObject(so) && so.include_usage === true,
      raw: req.rawBody,
    };
    if (body.stream === true) return sendStream(deps, req, prep, cap, treq, chatErrorFrame);
    return sendComplete(deps, req, prep, (o) => cap.complete(treq, o));
  }
}
