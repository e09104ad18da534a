// DashScope Responses API: POST /api/v2/apps/protocols/compatible-mode/v1/responses (not under /compatible-mode).
// Its SSE lines have no space after `data:`/`event:`, as the real upstream writes them.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import { countTokens, requestId, sendJson } from '../http-util.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { implicitCachedTokens, replyFor, streamWords } from './compat-chat.ts';
import { compatError } from './errors.ts';

export const RESPONSES_PATH = '/api/v2/apps/protocols/compatible-mode/v1/responses';

/** Text of `input` (a string, or items with string content or input_text parts) and the last user text. */
function inputText(input: unknown): { text: string; lastUser: string } | null {
  if (typeof input === 'string') return { text: input, lastUser: input };
  if (!Array.isArray(input) || input.length === 0) return null;
  let text = '';
  let lastUser = '';
  for (const item of input) {
    if (typeof item !== 'object' || item === null) return null;
    const { role, content } = item as { role?: unknown; content?: unknown };
    let t = '';
    if (typeof content === 'string') t = content;
    else if (Array.isArray(content)) {
      for (const p of content) {
        const part = p as { type?: unknown; text?: unknown };
        if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string')
          t += part.text;
      }
    } else return null;
    text += t;
    if (role === 'user') lastUser = t;
  }
  return { text, lastUser };
}

export function registerResponses(router: SimRouter, _ctx: SimContext): void {
  router.on('POST', RESPONSES_PATH, (req, res) => handleResponses(req, res));
}

async function handleResponses(req: SimRequest, res: ServerResponse): Promise<void> {
  const body = req.json as { model?: unknown; input?: unknown; stream?: unknown; instructions?: unknown } | undefined;
  if (!body || typeof body !== 'object')
    return compatError(res, 400, 'invalid_parameter_error', 'Request body is not valid JSON.');
  if (typeof body.model !== 'string' || !body.model)
    return compatError(res, 400, 'invalid_parameter_error', 'Model not specified.');
  if ((body as { background?: unknown }).background === true)
    return compatError(res, 400, 'invalid_parameter_error', 'background is not supported.');
  const inp = inputText(body.input);
  if (!inp)
    return compatError(res, 400, 'invalid_parameter_error', 'input must be a string or a non-empty array of items.');
  const instructions = typeof body.instructions === 'string' ? body.instructions : '';
  const reply = replyFor(inp.lastUser);
  const inputTokens = countTokens(instructions + inp.text);
  // Session cache (header) or a long prompt: part of the input is served from the cache.
  const sessionCache = req.headers['x-dashscope-session-cache'] === 'enable';
  const cached = sessionCache ? Math.floor(inputTokens / 2) : implicitCachedTokens(inputTokens);
  const outputTokens = countTokens(reply);
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
  req.settleTokens?.(usage.total_tokens);
  const id = `resp_${requestId()}`;
  const msgId = `msg_${requestId()}`;
  const created = Math.floor(Date.now() / 1000);
  const message = (text: string, status: string) => ({
    type: 'message',
    id: msgId,
    status,
    role: 'assistant',
    content: text ? [{ type: 'output_text', text, annotations: [] }] : [],
  });
  const response = (status: string, text: string, withUsage: boolean) => ({
    id,
    object: 'response',
    created_at: created,
    status,
    model: body.model,
    output: status === 'completed' ? [message(text, 'completed')] : [],
    usage: withUsage ? usage : null,
  });
  if (body.stream !== true) return sendJson(res, 200, response('completed', reply, true));

  res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8', 'cache-control': 'no-cache' });
  let seq = 0;
  const send = (type: string, payload: Record<string, unknown>) =>
    res.write(`event:${type}\ndata:${JSON.stringify({ type, sequence_number: seq++, ...payload })}\n\n`);
  send('response.created', { response: response('in_progress', '', false) });
  send('response.in_progress', { response: response('in_progress', '', false) });
  send('response.output_item.added', { output_index: 0, item: message('', 'in_progress') });
  send('response.content_part.added', {
    output_index: 0,
    item_id: msgId,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  if (
    !(await streamWords(req, res, reply, (word) =>
      send('response.output_text.delta', { output_index: 0, item_id: msgId, content_index: 0, delta: word }),
    ))
  )
    return;
  send('response.output_text.done', { output_index: 0, item_id: msgId, content_index: 0, text: reply });
  send('response.content_part.done', {
    output_index: 0,
    item_id: msgId,
    content_index: 0,
    part: { type: 'output_text', text: reply, annotations: [] },
  });
  send('response.output_item.done', { output_index: 0, item: message(reply, 'completed') });
  send('response.completed', { response: response('completed', reply, true) });
  res.end();
}
