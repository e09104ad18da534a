// OpenAI chat messages ⇄ DashScope native multimodal-generation (content parts {text} / {image} / {video}).
import { isObject, type JsonObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { literalHostReason } from '../../net/address-policy.ts';
import { num } from '../json-scan.ts';
import type { TokenUsage } from '../types.ts';

type NativePart = { text: string } | { image: string } | { video: string | string[] };

/** The URL of an `image_url` part; 400 unless it is an http(s) URL or a data:image/… URI (every chat model). */
export function imageUrlOf(part: JsonObject): string {
  const iu = part.image_url;
  const url = typeof iu === 'string' ? iu : isObject(iu) && typeof iu.url === 'string' ? iu.url : undefined;
  if (!url || !(/^https?:\/\//i.test(url) || /^data:image\//i.test(url))) {
    throw new GatewayError('invalid_parameter', 'image_url.url must be an http(s) URL or a data:image/… URI', {
      param: 'messages',
    });
  }
  const why = /^https?:/i.test(url) && URL.canParse(url) ? literalHostReason(new URL(url)) : null;
  if (why)
    throw new GatewayError('invalid_parameter', `image_url.url must be a public http(s) URL (not a ${why})`, {
      param: 'messages',
    });
  return url;
}

function toNativeContent(content: unknown): string | NativePart[] {
  if (typeof content === 'string') return [{ text: content }];
  if (content === null || content === undefined) return [{ text: '' }];
  if (!Array.isArray(content))
    throw new GatewayError('invalid_parameter', 'message content must be a string or an array of parts', {
      param: 'messages',
    });
  const parts: NativePart[] = [];
  for (const p of content) {
    if (!isObject(p))
      throw new GatewayError('invalid_parameter', 'content parts must be objects', { param: 'messages' });
    if (p.type === 'text' && typeof p.text === 'string') parts.push({ text: p.text });
    else if (p.type === 'image_url') parts.push({ image: imageUrlOf(p) });
    else if (p.type === 'video_url' && isObject(p.video_url) && typeof p.video_url.url === 'string')
      parts.push({ video: p.video_url.url });
    else
      throw new GatewayError(
        'invalid_parameter',
        `unsupported content part type '${String(p.type)}' with image input`,
        { param: 'messages' },
      );
  }
  return parts;
}

// Request fields that mean the same on the native path (as `parameters`).
const PASSED_PARAMETERS = [
  'temperature',
  'top_p',
  'top_k',
  'seed',
  'stop',
  'presence_penalty',
  'repetition_penalty',
  'enable_thinking',
  'thinking_budget',
  'vl_high_resolution_images',
] as const;

/**
 * Chat fields the native multimodal path has no equivalent for: refused (400, with the field) instead of being
 * dropped, since dropping them silently would change the answer the client asked for (no tool calls, no JSON
 * mode, one choice instead of n).
 */
function assertNativeCanHonour(body: JsonObject): void {
  const unsupported = (param: string) =>
    new GatewayError(
      'invalid_parameter',
      `${param} is not supported together with image input on this model (use a vision model such as qwx3-vl-plus, or send the request without images)`,
      { param },
    );
  for (const k of ['tools', 'tool_choice', 'functions', 'function_call'] as const)
    if (body[k] !== undefined && body[k] !== null) throw unsupported(k);
  const rf = body.response_format;
  if (isObject(rf) && rf.type !== undefined && rf.type !== 'text') throw unsupported('response_format');
  if (typeof body.n === 'number' && body.n > 1) throw unsupported('n');
  if (body.logprobs === true) throw unsupported('logprobs');
}

export function toNativeBody(body: JsonObject, upstreamModel: string, stream: boolean): string {
  assertNativeCanHonour(body);
  const messages = body.messages as unknown[];
  const native = messages.map((m) => {
    if (!isObject(m) || typeof m.role !== 'string')
      throw new GatewayError('invalid_parameter', 'each message needs a role', { param: 'messages' });
    return { role: m.role, content: toNativeContent(m.content) };
  });
  const parameters: Record<string, unknown> = { result_format: 'message' };
  if (stream) parameters.incremental_output = true;
  for (const k of PASSED_PARAMETERS) if (body[k] !== undefined) parameters[k] = body[k];
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined) parameters.max_tokens = maxTokens;
  return JSON.stringify({ model: upstreamModel, input: { messages: native }, parameters });
}

/** Native usage → metering usage. */
export function nativeUsage(u: unknown): TokenUsage | null {
  if (!isObject(u)) return null;
  const usage: TokenUsage = { kind: 'tokens', inputTokens: num(u.input_tokens), outputTokens: num(u.output_tokens) };
  const ptd = isObject(u.prompt_tokens_details)
    ? u.prompt_tokens_details
    : isObject(u.input_tokens_details)
      ? u.input_tokens_details
      : {};
  const cached = num(ptd.cached_tokens);
  if (cached) usage.cachedTokens = cached;
  return usage;
}

/** Metering usage → chat-completions usage for the client. */
export function chatUsageJson(u: TokenUsage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
  };
  if (u.cachedTokens || u.cacheCreationTokens) {
    const d: Record<string, number> = { cached_tokens: u.cachedTokens ?? 0 };
    if (u.cacheCreationTokens) d.cache_creation_input_tokens = u.cacheCreationTokens;
    out.prompt_tokens_details = d;
  }
  return out;
}

export interface NativeChoice {
  text: string;
  reasoning: string;
  finishReason: string | null;
}

/** The first choice of a native answer/event: joined text parts, reasoning, finish reason ("null" → null). */
export function nativeChoice(payload: unknown): NativeChoice | null {
  if (!isObject(payload) || !isObject(payload.output) || !Array.isArray(payload.output.choices)) return null;
  const c = payload.output.choices[0];
  if (!isObject(c)) return null;
  const msg = isObject(c.message) ? c.message : {};
  let text = '';
  if (typeof msg.content === 'string') text = msg.content;
  else if (Array.isArray(msg.content))
    for (const p of msg.content) if (isObject(p) && typeof p.text === 'string') text += p.text;
  const reasoning = typeof msg.reasoning_content === 'string' ? msg.reasoning_content : '';
  const fr = typeof c.finish_reason === 'string' && c.finish_reason !== 'null' ? c.finish_reason : null;
  return { text, reasoning, finishReason: fr };
}
