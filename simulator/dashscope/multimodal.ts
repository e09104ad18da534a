// DashScope native multimodal generation: POST /api/v1/services/aigc/multimodal-generation/generation.
// One path serves VL/omni chat (default here) and Qwen-Image generation/editing: other areas register a
// handler for a model-name prefix (e.g. 'qwen-image') and the dispatcher picks it by the body's `model`.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import { countTokens, requestId, sendJson } from '../http-util.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { IMAGE_TOKENS, replyFor, streamWords } from './compat-chat.ts';
import { nativeError } from './errors.ts';

export const MULTIMODAL_PATH = '/api/v1/services/aigc/multimodal-generation/generation';

export type MultimodalModelHandler = (req: SimRequest, res: ServerResponse, ctx: SimContext) => void | Promise<void>;

// Module-level on purpose: handlers are pure functions of (req, res, ctx), so one registry serves every simulator
// instance.
const handlers: Array<{ prefix: string; handler: MultimodalModelHandler }> = [];

/** Route requests whose `model` starts with `prefix` to `handler` (longest prefix wins). Idempotent per prefix. */
export function registerMultimodalModelHandler(prefix: string, handler: MultimodalModelHandler): void {
  const i = handlers.findIndex((h) => h.prefix === prefix);
  if (i >= 0) handlers.splice(i, 1);
  handlers.push({ prefix, handler });
  handlers.sort((a, b) => b.prefix.length - a.prefix.length);
}

export function registerMultimodal(router: SimRouter, ctx: SimContext): void {
  router.on('POST', MULTIMODAL_PATH, async (req, res) => {
    const body = req.json as { model?: unknown } | undefined;
    if (!body || typeof body !== 'object')
      return nativeError(res, 400, 'InvalidParameter', 'Request body is not valid JSON.');
    if (typeof body.model !== 'string' || !body.model)
      return nativeError(res, 400, 'BadRequest.EmptyModel', 'Required parameter "model" missing from request.');
    const model = body.model;
    const h = handlers.find((x) => model.startsWith(x.prefix));
    if (h) return h.handler(req, res, ctx);
    return handleVisionChat(req, res, ctx);
  });
}

interface NativeMessage {
  role?: unknown;
  content?: unknown;
}

/** Text, image count and last user text of native messages (content: string or [{text}|{image}|{video}]). */
function flattenNative(messages: unknown[]): { text: string; images: number; lastUser: string } | string {
  let text = '';
  let images = 0;
  let lastUser = '';
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) return 'Each message must be an object.';
    const { role, content } = m as NativeMessage;
    if (typeof role !== 'string') return 'Each message needs a role.';
    let t = '';
    if (typeof content === 'string') t = content;
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (typeof part !== 'object' || part === null) return 'Content parts must be objects.';
        const p = part as { text?: unknown; image?: unknown; video?: unknown; type?: unknown };
        if (p.type !== undefined)
          return `Content part with "type" is not the native format; use {"text"} or {"image"}.`;
        if (typeof p.text === 'string') t += p.text;
        else if (typeof p.image === 'string') images += 1;
        else if (p.video !== undefined) images += 4;
        else return 'Unknown content part.';
      }
    } else return 'Message content must be a string or an array.';
    text += t;
    if (role === 'user') lastUser = t;
  }
  return { text, images, lastUser };
}

function nativeUsage(text: string, images: number, outputText: string) {
  const textTokens = countTokens(text);
  const imageTokens = images * IMAGE_TOKENS;
  const input = textTokens + imageTokens;
  const output = countTokens(outputText);
  const u: Record<string, unknown> = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    input_tokens_details: { text_tokens: textTokens, image_tokens: imageTokens },
    output_tokens_details: { text_tokens: output },
  };
  if (imageTokens > 0) u.image_tokens = imageTokens;
  return u;
}

async function handleVisionChat(req: SimRequest, res: ServerResponse, _ctx: SimContext): Promise<void> {
  const body = req.json as { model: string; input?: { messages?: unknown }; parameters?: Record<string, unknown> };
  const messages = body.input?.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return nativeError(res, 400, 'InvalidParameter', 'Required parameter "input.messages" missing or empty.');
  const flat = flattenNative(messages);
  if (typeof flat === 'string') return nativeError(res, 400, 'InvalidParameter', flat);
  const reply = replyFor(flat.lastUser);
  const rid = requestId();
  req.settleTokens?.(nativeUsage(flat.text, flat.images, reply).total_tokens as number);
  const streaming =
    req.headers['x-dashscope-sse'] === 'enable' || String(req.headers.accept ?? '').includes('text/event-stream');
  if (!streaming) {
    return sendJson(res, 200, {
      output: { choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: [{ text: reply }] } }] },
      usage: nativeUsage(flat.text, flat.images, reply),
      request_id: rid,
    });
  }
  const incremental = body.parameters?.incremental_output === true;
  res.writeHead(200, {
    'content-type': 'text/event-stream;charset=UTF-8',
    'cache-control': 'no-cache',
    'x-dashscope-call-gateway': 'true',
  });
  let sofar = '';
  const sent = await streamWords(req, res, reply, (word, i, last) => {
    sofar += word;
    const event = {
      output: {
        choices: [
          {
            message: { content: [{ text: incremental ? word : sofar }], role: 'assistant' },
            finish_reason: last ? 'stop' : 'null',
          },
        ],
      },
      usage: nativeUsage(flat.text, flat.images, sofar),
      request_id: rid,
    };
    res.write(`id:${i + 1}\nevent:result\n:HTTP_STATUS/200\ndata:${JSON.stringify(event)}\n\n`);
  });
  if (!sent) return;
  res.end();
}
