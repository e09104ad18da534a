// The top-level fields each text endpoint passes on: those of its API (OpenAI's chat completions, responses and
// embeddings; Anthropic's messages) and the upstream's own extensions of them. A field in neither is dropped as the
// body is taken, before any check, estimate or serialisation walks what it holds: nothing upstream would read it.
import type { JsonObject } from '../json/json.ts';

const DASHSCOPE_TEXT = [
  'enable_thinking',
  'thinking_budget',
  'enable_search',
  'search_options',
  'top_k',
  'repetition_penalty',
  'seed',
];

export const CHAT_FIELDS: ReadonlySet<string> = new Set([
  ...['model', 'messages', 'audio', 'frequency_penalty', 'function_call', 'functions', 'logit_bias', 'logprobs'],
  ...['max_completion_tokens', 'max_tokens', 'metadata', 'modalities', 'n', 'parallel_tool_calls', 'prediction'],
  ...['presence_penalty', 'prompt_cache_key', 'prompt_cache_retention', 'reasoning_effort', 'response_format'],
  ...['safety_identifier', 'service_tier', 'stop', 'store', 'stream', 'stream_options', 'temperature', 'tool_choice'],
  ...['tools', 'top_logprobs', 'top_p', 'user', 'verbosity', 'web_search_options'],
  ...DASHSCOPE_TEXT,
  ...['enable_code_interpreter', 'translation_options', 'vl_high_resolution_images', 'vl_enable_image_hw_output'],
  ...['result_format', 'incremental_output'],
]);

export const RESPONSES_FIELDS: ReadonlySet<string> = new Set([
  ...['model', 'input', 'background', 'conversation', 'include', 'instructions', 'max_output_tokens', 'max_tool_calls'],
  ...[
    'metadata',
    'parallel_tool_calls',
    'previous_response_id',
    'prompt',
    'prompt_cache_key',
    'prompt_cache_retention',
  ],
  ...['reasoning', 'safety_identifier', 'service_tier', 'store', 'stream', 'stream_options', 'temperature', 'text'],
  ...['tool_choice', 'tools', 'top_logprobs', 'top_p', 'truncation', 'user', 'presence_penalty'],
  ...DASHSCOPE_TEXT,
]);

export const MESSAGES_FIELDS: ReadonlySet<string> = new Set([
  ...['model', 'messages', 'max_tokens', 'container', 'context_management', 'mcp_servers', 'metadata', 'output_config'],
  ...['output_format', 'service_tier', 'stop_sequences', 'stream', 'system', 'temperature', 'thinking', 'tool_choice'],
  ...['tools', 'top_k', 'top_p'],
]);

// `stream` is kept to be refused by name (embeddings never stream), not dropped silently.
export const EMBEDDINGS_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'dimensions',
  'encoding_format',
  'user',
  'text_type',
  'output_type',
  'stream',
]);

/** `body` without its top-level fields outside `known` (removed in place; a body with none is left as it is). */
export function knownFieldsOnly(body: JsonObject, known: ReadonlySet<string>): JsonObject {
  for (const k in body) if (!known.has(k)) delete body[k];
  return body;
}
