// OpenAI-compatible chat on DashScope (/compatible-mode/v1/chat/completions). The client body passes through
// with the upstream model name; answers are forwarded as bytes with the model renamed and usage read cheaply.
import { isObject } from '../../contracts/fields.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { UpstreamClient } from '../http-client.ts';
import { num, objectAfterKey, renameModel, stringValueLength } from '../json-scan.ts';
import { sseEvents } from '../sse-events.ts';
import type { CallOptions, CompleteResult, StreamResult, TextCapability, TextRequest, TokenUsage } from '../types.ts';
import { assertJson, bodyText, dashscopeStreamError, firstString, headerString, postDashscope, streamBroke } from './compat-chat-common.ts';

export const COMPAT_CHAT_PATH = '/compatible-mode/v1/chat/completions';

/** chat-style usage → metering usage (cached and cache-creation tokens are counted within prompt_tokens). */
export function chatUsage(u: Record<string, unknown>): TokenUsage {
  const d = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const usage: TokenUsage = { kind: 'tokens', inputTokens: num(u.prompt_tokens), outputTokens: num(u.completion_tokens) };
  const cached = num(d.cached_tokens);
  const creation = num(d.cache_creation_input_tokens) || num(u.cache_creation_input_tokens);
  if (cached) usage.cachedTokens = cached;
  if (creation) usage.cacheCreationTokens = creation;
  return usage;
}

export function compatChatBody(req: TextRequest, stream: boolean): string {
  const b: Record<string, unknown> = { ...req.body, model: req.upstreamModel };
  if (stream) {
    // Always ask for stream usage: metering needs it even when the client did not ask.
    b.stream = true;
    b.stream_options = { ...(isObject(req.body.stream_options) ? req.body.stream_options : {}), include_usage: true };
  }
  return JSON.stringify(b);
}

export function compatChat(client: UpstreamClient): TextCapability {
  return {
    async complete(req: TextRequest, o: CallOptions): Promise<CompleteResult> {
      const res = await postDashscope(client, o, { path: COMPAT_CHAT_PATH, body: compatChatBody(req, false) });
      const text = await bodyText(res);
      const u = objectAfterKey(text, 'usage');
      if (!u) assertJson(text);
      return {
        body: renameModel(text, req.upstreamModel, req.publicModel),
        usage: u ? chatUsage(u) : null,
        upstreamRequestId: headerString(res.headers['x-request-id']) ?? firstString(text, 'id'),
      };
    },

    async stream(req: TextRequest, o: CallOptions): Promise<StreamResult> {
      const res = await postDashscope(client, o, { path: COMPAT_CHAT_PATH, body: compatChatBody(req, true), stream: true });
      let usage: TokenUsage | null = null;
      let produced = 0;
      let rid = headerString(res.headers['x-request-id']);
      async function* frames(): AsyncGenerator<string> {
        let done = false;
        try {
          for await (const ev of sseEvents(res.body)) {
            let d = ev.data;
            if (d === '[DONE]') {
              done = true;
              yield 'data: [DONE]\n\n';
              continue;
            }
            if (d.startsWith('{"error"')) throw dashscopeStreamError(d);
            rid ??= firstString(d, 'id');
            if (d.includes('"usage":{')) {
              const u = objectAfterKey(d, 'usage');
              if (u) usage = chatUsage(u);
              if (!req.clientWantsUsage) {
                // The client did not ask for usage: drop the usage-only chunk, strip usage from any other.
                if (d.includes('"choices":[]')) continue;
                const parsed = JSON.parse(d) as Record<string, unknown>;
                parsed.usage = null;
                d = JSON.stringify(parsed);
              }
            }
            produced += stringValueLength(d, 'content') + (d.includes('"reasoning_content":"') ? stringValueLength(d, 'reasoning_content') : 0);
            yield `data: ${renameModel(d, req.upstreamModel, req.publicModel)}\n\n`;
          }
        } catch (e) {
          throw streamBroke(e);
        }
        if (!done) throw new GatewayError('upstream_error', 'The upstream stream ended before it was complete');
      }
      return { upstreamRequestId: rid, frames: frames(), usage: () => usage, producedChars: () => produced };
    },
  };
}
