// DashScope Anthropic-compatible Messages: POST /apps/anthropic/v1/messages (x-api-key or Bearer).
// Usage follows the Messages semantics: input_tokens excludes cache reads and cache writes.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import { countTokens, requestId, sendJson } from '../http-util.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { IMAGE_TOKENS, replyFor, streamWords } from './compat-chat.ts';

export const MESSAGES_PATH = '/apps/anthropic/v1/messages';

function anthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: requestId() });
}

function flatten(body: {
  system?: unknown;
  messages: unknown[];
}): { text: string; images: number; lastUser: string } | string {
  let text = typeof body.system === 'string' ? body.system : '';
  if (Array.isArray(body.system))
    for (const b of body.system)
      if (typeof (b as { text?: unknown }).text === 'string') text += (b as { text: string }).text;
  let images = 0;
  let lastUser = '';
  for (const m of body.messages) {
    if (typeof m !== 'object' || m === null) return 'messages: each message must be an object';
    const { role, content } = m as { role?: unknown; content?: unknown };
    if (role !== 'user' && role !== 'assistant') return `messages: unexpected role "${String(role)}"`;
    let t = '';
    if (typeof content === 'string') t = content;
    else if (Array.isArray(content)) {
      for (const b of content) {
        const block = b as { type?: unknown; text?: unknown };
        if (block.type === 'text' && typeof block.text === 'string') t += block.text;
        else if (block.type === 'image' || block.type === 'document') images += 1;
      }
    } else return 'messages: content must be a string or an array of blocks';
    text += t;
    if (role === 'user') lastUser = t;
  }
  return { text, images, lastUser };
}

export function registerAnthropic(router: SimRouter, _ctx: SimContext): void {
  router.on('POST', MESSAGES_PATH, (req, res) => handleMessages(req, res));
}

async function handleMessages(req: SimRequest, res: ServerResponse): Promise<void> {
  const body = req.json as
    | {
        model?: unknown;
        max_tokens?: unknown;
        messages?: unknown;
        stream?: unknown;
        thinking?: unknown;
        system?: unknown;
      }
    | undefined;
  if (!body || typeof body !== 'object')
    return anthropicError(res, 400, 'invalid_request_error', 'Request body is not valid JSON.');
  if (typeof body.model !== 'string' || !body.model)
    return anthropicError(res, 400, 'invalid_request_error', 'model: Field required');
  if (typeof body.max_tokens !== 'number')
    return anthropicError(res, 400, 'invalid_request_error', 'max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return anthropicError(res, 400, 'invalid_request_error', 'messages: Field required');
  const flat = flatten({ system: body.system, messages: body.messages });
  if (typeof flat === 'string') return anthropicError(res, 400, 'invalid_request_error', flat);
  const reply = replyFor(flat.lastUser);
  const thinking =
    (body.thinking as { type?: unknown } | undefined)?.type === 'enabled' ? 'Let me think about this briefly.' : '';
  const total = countTokens(flat.text) + flat.images * IMAGE_TOKENS;
  // Explicit cache: a request carrying cache_control writes half its input to the cache.
  const creation = req.raw.includes('"cache_control"') ? Math.floor(total / 2) : 0;
  const read = total >= 512 ? Math.floor((total - creation - 256) / 256) * 256 : 0;
  const inputTokens = total - creation - Math.max(0, read);
  const outputTokens = countTokens(reply) + countTokens(thinking);
  const usage = {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_read_input_tokens: Math.max(0, read),
    cache_creation_input_tokens: creation,
  };
  req.settleTokens?.(total + outputTokens);
  const id = `msg_${requestId().replace(/-/g, '')}`;
  const content: Array<Record<string, unknown>> = [];
  if (thinking) content.push({ type: 'thinking', thinking, signature: 'sim-signature' });
  content.push({ type: 'text', text: reply });
  if (body.stream !== true) {
    return sendJson(
      res,
      200,
      {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      },
      { 'request-id': requestId() },
    );
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const send = (type: string, payload: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
  send('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  send('ping', {});
  let index = 0;
  if (thinking) {
    send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } });
    send('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'sim-signature' } });
    send('content_block_stop', { index });
    index += 1;
  }
  send('content_block_start', { index, content_block: { type: 'text', text: '' } });
  if (
    !(await streamWords(req, res, reply, (word) =>
      send('content_block_delta', { index, delta: { type: 'text_delta', text: word } }),
    ))
  )
    return;
  send('content_block_stop', { index });
  send('message_delta', {
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  send('message_stop', {});
  res.end();
}
