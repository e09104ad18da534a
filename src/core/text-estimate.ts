// What a text call is estimated at when the upstream reports no usage, and what it reserves before the call: counted
// from the request body (characters and media parts), never with a tokenizer.
import type { TokenUsage } from '../adapters/types.ts';
import { isObject } from '../json/json.ts';

/** ≈4 characters a token, 258 tokens an image: the documented estimate when the upstream reported no usage. */
export const CHARS_PER_TOKEN = 4;
export const IMAGE_TOKENS_ESTIMATE = 258;
const MEDIA_KEYS = new Set(['image_url', 'image', 'url', 'data', 'source', 'video_url', 'input_image', 'file_data']);
const MEDIA_REF = /^(?:https?|data|oss|file):/i;
const BASE64 = /^[A-Za-z0-9+/=\r\n]+$/;

/**
 * Is this value under a media key really media — a URL, a data URI or base64 text, or an object carrying one (an
 * `image_url` part's `{url}`, a messages `source` of type base64 or url)? Anything else under such a name (a tool
 * schema's property `data`, a tool call's `input.source`) is text the upstream reads, and is counted as text.
 */
function isMedia(v: unknown): boolean {
  if (typeof v === 'string') return MEDIA_REF.test(v) || (v.length >= 64 && BASE64.test(v));
  if (!isObject(v)) return false;
  // A messages source says what it is: {type: base64, media_type, data}, {type: url, url}, {type: file, file_id}.
  if (
    (v.type === 'base64' || v.type === 'url' || v.type === 'file') &&
    (typeof v.data === 'string' || typeof v.url === 'string' || typeof v.file_id === 'string')
  )
    return true;
  return (typeof v.url === 'string' && isMedia(v.url)) || (typeof v.data === 'string' && isMedia(v.data));
}

/** Input characters and media parts of a request value (URLs/base64 are not text). */
export function inputSize(v: unknown, acc = { chars: 0, media: 0 }): { chars: number; media: number } {
  if (typeof v === 'string') acc.chars += v.length;
  else if (Array.isArray(v)) for (const x of v) inputSize(x, acc);
  else if (isObject(v)) {
    // for…in over a parsed JSON object: its own keys only, without an entries array per object.
    for (const k in v) {
      const x = v[k];
      if (MEDIA_KEYS.has(k) && isMedia(x)) {
        acc.media += 1;
        continue;
      }
      if (k === 'type' || k === 'role' || k === 'cache_control') continue;
      inputSize(x, acc);
    }
  }
  return acc;
}

export function estimateUsage(input: { chars: number; media: number }, outputChars: number): TokenUsage {
  return {
    kind: 'tokens',
    inputTokens: Math.ceil(input.chars / CHARS_PER_TOKEN) + input.media * IMAGE_TOKENS_ESTIMATE,
    outputTokens: Math.ceil(outputChars / CHARS_PER_TOKEN),
  };
}

/** Output tokens reserved for a text call that names no output limit of its own. */
export const DEFAULT_OUTPUT_RESERVE = 4096;
/** Tokens reserved per image or other media part of a text call's input. */
export const MEDIA_TOKENS_RESERVE = 1280;
const OUTPUT_LIMIT_KEYS = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'] as const;

/**
 * What a text call may cost at most, held against the quota before the call: a token per input character (no
 * tokenizer yields fewer characters per token), MEDIA_TOKENS_RESERVE per media part, and the call's own output
 * limit (the largest it names, else DEFAULT_OUTPUT_RESERVE; none for embeddings).
 */
export function textReservation(body: unknown, output: boolean): TokenUsage {
  const size = inputSize(body);
  let out = 0;
  if (output) {
    out = DEFAULT_OUTPUT_RESERVE;
    if (isObject(body)) {
      // The largest limit named: an upstream that honours another of the keys than the one read last would
      // otherwise produce more than was reserved.
      let named = 0;
      for (const k of OUTPUT_LIMIT_KEYS) {
        const v = body[k];
        if (typeof v === 'number' && Number.isSafeInteger(v) && v > named) named = v;
      }
      if (named > 0) out = named;
      // `n` choices (chat completions) each produce up to the limit: the body goes upstream as sent, `n` with it.
      const n = body.n;
      if (typeof n === 'number' && Number.isSafeInteger(n) && n > 1) out = Math.min(out * n, Number.MAX_SAFE_INTEGER);
    }
  }
  return { kind: 'tokens', inputTokens: size.chars + size.media * MEDIA_TOKENS_RESERVE, outputTokens: out };
}
