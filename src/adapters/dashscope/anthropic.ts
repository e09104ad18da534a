// Messages (Anthropic-compatible) on DashScope (/apps/anthropic/v1/messages). The body — thinking, tools, media,
// cache_control — passes through untouched except the model name; the version/beta headers are forwarded.
import { isObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { UpstreamClient } from '../http-client.ts';
import { num, objectAfterKey, renameModel, stringValueLength } from '../json-scan.ts';
import { bodyWithModel } from '../json-splice.ts';
import { sseEvents } from '../sse-events.ts';
import type { CallOptions, CompleteResult, StreamResult, TextCapability, TextRequest, TokenUsage } from '../types.ts';
import {
  assertJson,
  bodyText,
  dashscopeStreamError,
  firstString,
  headerString,
  postDashscope,
  postDashscopeStream,
  streamBroke,
} from './compat-chat-common.ts';

export const MESSAGES_PATH = '/apps/anthropic/v1/messages';

interface MessagesUsageParts {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** Messages semantics: input_tokens excludes cache reads and writes; metering counts all input, cache within. */
export function messagesUsage(p: MessagesUsageParts): TokenUsage {
  const usage: TokenUsage = {
    kind: 'tokens',
    inputTokens: p.input + p.cacheRead + p.cacheCreation,
    outputTokens: p.output,
  };
  if (p.cacheRead) usage.cachedTokens = p.cacheRead;
  if (p.cacheCreation) usage.cacheCreationTokens = p.cacheCreation;
  return usage;
}

function merge(into: MessagesUsageParts, u: Record<string, unknown>): void {
  if (u.input_tokens !== undefined && u.input_tokens !== null) into.input = num(u.input_tokens);
  if (u.output_tokens !== undefined && u.output_tokens !== null) into.output = num(u.output_tokens);
  if (u.cache_read_input_tokens !== undefined && u.cache_read_input_tokens !== null)
    into.cacheRead = num(u.cache_read_input_tokens);
  if (u.cache_creation_input_tokens !== undefined && u.cache_creation_input_tokens !== null)
    into.cacheCreation = num(u.cache_creation_input_tokens);
}

export function dashscopeMessages(client: UpstreamClient): TextCapability {
  const post = (req: TextRequest, o: CallOptions) =>
    postDashscope(client, o, { path: MESSAGES_PATH, body: bodyWithModel(req), auth: 'x-api-key' });
  const postStream = (req: TextRequest, o: CallOptions) =>
    postDashscopeStream(client, o, { path: MESSAGES_PATH, body: bodyWithModel(req), auth: 'x-api-key' });
  return {
    async complete(req: TextRequest, o: CallOptions): Promise<CompleteResult> {
      const res = await post(req, o);
      const text = await bodyText(res);
      const u = objectAfterKey(text, 'usage');
      if (!u) assertJson(text);
      const parts = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
      if (u) merge(parts, u);
      return {
        body: renameModel(text, req.upstreamModel, req.publicModel),
        usage: u ? messagesUsage(parts) : null,
        upstreamRequestId:
          headerString(res.headers['request-id']) ??
          headerString(res.headers['x-request-id']) ??
          firstString(text, 'id'),
      };
    },

    async stream(req: TextRequest, o: CallOptions): Promise<StreamResult> {
      const res = await postStream(req, o);
      const parts = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
      // message_start's usage is a placeholder for the output (1 token); only message_delta reports what was
      // produced. A stream cut before it is charged by the estimate of what was delivered, as chat's is.
      let reported = false;
      let produced = 0;
      let rid = headerString(res.headers['request-id']) ?? headerString(res.headers['x-request-id']);
      async function* frames(): AsyncGenerator<string> {
        let stopped = false;
        try {
          for await (const ev of sseEvents(res.body)) {
            const d = ev.data;
            const type = ev.event ?? firstString(d, 'type') ?? 'message';
            if (type === 'error') throw dashscopeStreamError(d);
            if (type === 'message_start' || type === 'message_delta') {
              const u = objectAfterKey(d, 'usage');
              if (u) {
                merge(parts, u);
                if (type === 'message_delta') reported = true;
              }
              if (type === 'message_start') rid ??= firstString(d, 'id');
            } else if (type === 'content_block_delta') {
              produced +=
                stringValueLength(d, 'text') + stringValueLength(d, 'thinking') + stringValueLength(d, 'partial_json');
            } else if (type === 'message_stop') stopped = true;
            yield `event: ${type}\ndata: ${type === 'message_start' ? renameModel(d, req.upstreamModel, req.publicModel) : d}\n\n`;
          }
        } catch (e) {
          throw streamBroke(e);
        }
        if (!stopped) throw new GatewayError('upstream_error', 'The upstream stream ended before it was complete');
      }
      return {
        upstreamRequestId: rid,
        frames: frames(),
        usage: () => (reported ? messagesUsage(parts) : null),
        producedChars: () => produced,
      };
    },
  };
}

/** Does this error body look like the Messages error shape? (kept for callers that relay it.) */
export function isMessagesError(v: unknown): boolean {
  return isObject(v) && v.type === 'error' && isObject(v.error);
}
