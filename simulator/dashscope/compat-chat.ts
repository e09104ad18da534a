import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import { countTokens, requestId, sendJson, sleep } from '../http-util.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { compatError } from './errors.ts';
import { argumentPieces, toolCallFor } from './tool-calls.ts';

interface ChatBody {
  model?: unknown;
  messages?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
  tools?: unknown;
  tool_choice?: unknown;
}

/** Text of all messages and the number of image parts (for usage). */
export function flattenMessages(messages: unknown[]): { text: string; images: number; lastUser: string } {
  let text = '';
  let images = 0;
  let lastUser = '';
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) continue;
    const { role, content } = m as { role?: unknown; content?: unknown };
    let t = '';
    if (typeof content === 'string') t = content;
    else if (Array.isArray(content)) {
      for (const part of content) {
        const p = part as { type?: unknown; text?: unknown; image_url?: unknown; image?: unknown };
        if (typeof p.text === 'string') t += p.text;
        if (p.type === 'image_url' || p.type === 'image' || p.image !== undefined) images += 1;
      }
    }
    text += t;
    if (role === 'user') lastUser = t;
  }
  return { text, images, lastUser };
}

/** What the user asked about, fault markers left out. */
export const topicOf = (lastUser: string): string =>
  lastUser
    .replace(/sim-fault:[a-z-]+(:\d+)?/g, '')
    .trim()
    .slice(0, 60);

export function replyFor(lastUser: string): string {
  return `This is a simulated reply about: ${topicOf(lastUser) || 'nothing in particular'}. It has a few words to stream.`;
}

export const IMAGE_TOKENS = 258;

/** Implicit cache: an input of 512+ tokens hits the cache for its whole 256-token blocks beyond the first block. */
export function implicitCachedTokens(inputTokens: number): number {
  return inputTokens >= 512 ? Math.floor((inputTokens - 256) / 256) * 256 : 0;
}

export function chatUsage(text: string, images: number, completion: string) {
  const prompt = countTokens(text) + images * IMAGE_TOKENS;
  const completionTokens = countTokens(completion);
  const cached = implicitCachedTokens(prompt);
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completionTokens,
    total_tokens: prompt + completionTokens,
  };
  if (cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
  return usage;
}

/** Stream outcomes seen by the simulator (tests check that a client abort reached the upstream). */
export function streamStats(ctx: SimContext): { completed: number; aborted: number } {
  let st = ctx.state.get('compat-chat.streams') as { completed: number; aborted: number } | undefined;
  if (!st) {
    st = { completed: 0, aborted: 0 };
    ctx.state.set('compat-chat.streams', st);
  }
  return st;
}

/** The `cut` fault: let what was written reach the client first, then drop the connection mid-stream. */
export async function cutStream(res: ServerResponse): Promise<void> {
  await sleep(25);
  res.socket?.destroy();
}

/**
 * Stream `reply` word by word, as every text protocol here does, honouring the stream faults: `trickle[:ms]`
 * waits before each word, `cut` drops the connection after a few words. `emit` writes one word's event.
 * Resolves false when the stream ended early (cut, or the client went away): the caller writes nothing more.
 */
export async function streamWords(
  req: SimRequest,
  res: ServerResponse,
  reply: string,
  emit: (word: string, index: number, last: boolean) => void,
): Promise<boolean> {
  const words = reply.split(/(?<= )/);
  const trickle = req.fault?.kind === 'trickle' ? (req.fault.arg ?? 200) : 0;
  for (let i = 0; i < words.length; i++) {
    if (req.fault?.kind === 'cut' && i === Math.min(3, words.length - 1)) {
      await cutStream(res);
      return false;
    }
    if (trickle) await sleep(trickle);
    if (res.destroyed) return false;
    emit(words[i]!, i, i === words.length - 1);
  }
  return true;
}

export function registerCompatChat(router: SimRouter, ctx: SimContext): void {
  router.on('POST', '/compatible-mode/v1/chat/completions', async (req, res) => handleChat(req, res, ctx));
}

async function handleChat(req: SimRequest, res: ServerResponse, ctx: SimContext): Promise<void> {
  const body = req.json as ChatBody | undefined;
  if (!body || typeof body !== 'object')
    return compatError(res, 400, 'invalid_parameter_error', 'Request body is not valid JSON.');
  if (typeof body.model !== 'string' || !body.model)
    return compatError(res, 400, 'invalid_parameter_error', 'Model not specified.');
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return compatError(res, 400, 'invalid_parameter_error', 'Required parameter messages is missing or empty.');
  }
  const { text, images, lastUser } = flattenMessages(body.messages);
  const id = `chatcmpl-${requestId()}`;
  const call = toolCallFor(
    { tools: body.tools, tool_choice: body.tool_choice, messages: body.messages },
    topicOf(lastUser),
    requestId(),
  );
  const reply = call ? '' : replyFor(lastUser);
  const usage = chatUsage(text, images, call ? call.arguments : reply);
  // Explicit cache (cache_control on a part): half the prompt is written to the cache on this call.
  if (req.raw.includes('"cache_control"')) {
    const details = (usage.prompt_tokens_details as Record<string, number> | undefined) ?? { cached_tokens: 0 };
    details.cache_creation_input_tokens = Math.floor((usage.prompt_tokens as number) / 2);
    usage.prompt_tokens_details = details;
  }
  req.settleTokens?.(usage.total_tokens as number);
  if (req.fault?.kind === 'huge-usage')
    Object.assign(usage, { prompt_tokens: 1e20, completion_tokens: 1e20, total_tokens: 2e20 });
  const noUsage = req.fault?.kind === 'no-usage';
  const created = Math.floor(Date.now() / 1000);
  const finish = call ? 'tool_calls' : 'stop';
  const toolCall = call && { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
  if (body.stream !== true) {
    return sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply, ...(toolCall ? { tool_calls: [toolCall] } : {}) },
          finish_reason: finish,
          logprobs: null,
        },
      ],
      ...(noUsage ? {} : { usage }),
      system_fingerprint: null,
    });
  }
  const includeUsage = body.stream_options?.include_usage === true && !noUsage;
  const stats = streamStats(ctx);
  res.on('close', () => {
    if (res.writableFinished) stats.completed += 1;
    else stats.aborted += 1; // the client (gateway) went away mid-stream
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }], usage: null, system_fingerprint: null })}\n\n`;
  if (call) {
    // The call's id, type and name first, then its arguments a few characters at a time.
    res.write(
      chunk(
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
        },
        null,
      ),
    );
    for (const piece of argumentPieces(call.arguments)) {
      if (res.destroyed) return;
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null));
    }
  } else {
    res.write(chunk({ role: 'assistant', content: '' }, null));
    if (!(await streamWords(req, res, reply, (word) => res.write(chunk({ content: word }, null))))) return;
  }
  res.write(chunk({}, finish));
  if (includeUsage) {
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage, system_fingerprint: null })}\n\n`,
    );
  }
  res.end('data: [DONE]\n\n');
}
