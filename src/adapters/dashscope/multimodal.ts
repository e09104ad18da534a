// Chat with image parts on the native multimodal path (/api/v1/services/aigc/multimodal-generation/generation),
// answered to the client in the chat-completions shape, streaming included.
import { isObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { UpstreamClient } from '../http-client.ts';
import { sseEvents } from '../sse-events.ts';
import type { CallOptions, CompleteResult, StreamResult, TextCapability, TextRequest, TokenUsage } from '../types.ts';
import {
  bodyText,
  dashscopeStreamError,
  headerString,
  postDashscope,
  postDashscopeStream,
  streamBroke,
  unusableAnswer,
} from './compat-chat-common.ts';
import { chatUsageJson, nativeChoice, nativeUsage, toNativeBody } from './multimodal-translate.ts';

export const MULTIMODAL_PATH = '/api/v1/services/aigc/multimodal-generation/generation';

export function multimodalChat(client: UpstreamClient): TextCapability {
  return {
    async complete(req: TextRequest, o: CallOptions): Promise<CompleteResult> {
      const res = await postDashscope(client, o, {
        path: MULTIMODAL_PATH,
        body: toNativeBody(req.body, req.upstreamModel, false),
      });
      const text = await bodyText(res);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw unusableAnswer('The upstream returned a malformed response');
      }
      const choice = nativeChoice(parsed);
      if (!choice) throw unusableAnswer('The upstream answer had no choices');
      const p = parsed as Record<string, unknown>;
      const rid = typeof p.request_id === 'string' ? p.request_id : headerString(res.headers['x-request-id']);
      const usage = nativeUsage(p.usage);
      const message: Record<string, unknown> = { role: 'assistant', content: choice.text };
      if (choice.reasoning) message.reasoning_content = choice.reasoning;
      const out = {
        id: `chatcmpl-${rid ?? 'native'}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: req.publicModel,
        choices: [{ index: 0, message, finish_reason: choice.finishReason ?? 'stop', logprobs: null }],
        usage: usage ? chatUsageJson(usage) : null,
      };
      return { body: JSON.stringify(out), usage, upstreamRequestId: rid };
    },

    async stream(req: TextRequest, o: CallOptions): Promise<StreamResult> {
      const res = await postDashscopeStream(client, o, {
        path: MULTIMODAL_PATH,
        body: toNativeBody(req.body, req.upstreamModel, true),
        headers: { 'x-dashscope-sse': 'enable' },
      });
      let usage: TokenUsage | null = null;
      let produced = 0;
      let rid = headerString(res.headers['x-request-id']);
      const created = Math.floor(Date.now() / 1000);
      const chunk = (
        delta: Record<string, unknown>,
        finish: string | null,
        u: TokenUsage | null = null,
        empty = false,
      ) =>
        `data: ${JSON.stringify({
          id: `chatcmpl-${rid ?? 'native'}`,
          object: 'chat.completion.chunk',
          created,
          model: req.publicModel,
          choices: empty ? [] : [{ index: 0, delta, finish_reason: finish, logprobs: null }],
          usage: u ? chatUsageJson(u) : null,
        })}\n\n`;
      async function* frames(): AsyncGenerator<string> {
        let finished = false;
        let first = true;
        try {
          for await (const ev of sseEvents(res.body)) {
            let payload: unknown;
            try {
              payload = JSON.parse(ev.data);
            } catch {
              throw new GatewayError('upstream_error', 'The upstream stream sent a malformed event');
            }
            if (isObject(payload) && typeof payload.code === 'string' && payload.code !== '')
              throw dashscopeStreamError(ev.data);
            if (isObject(payload) && typeof payload.request_id === 'string') rid ??= payload.request_id;
            const c = nativeChoice(payload);
            if (isObject(payload)) usage = nativeUsage(payload.usage) ?? usage;
            if (!c) continue;
            if (first) {
              first = false;
              yield chunk({ role: 'assistant', content: '' }, null);
            }
            if (c.text || c.reasoning) {
              produced += c.text.length + c.reasoning.length;
              const delta: Record<string, unknown> = { content: c.text };
              if (c.reasoning) delta.reasoning_content = c.reasoning;
              yield chunk(delta, null);
            }
            if (c.finishReason) {
              finished = true;
              yield chunk({}, c.finishReason);
            }
          }
        } catch (e) {
          throw streamBroke(e);
        }
        if (!finished) throw new GatewayError('upstream_error', 'The upstream stream ended before it was complete');
        if (req.clientWantsUsage && usage) yield chunk({}, null, usage, true);
        yield 'data: [DONE]\n\n';
      }
      return { upstreamRequestId: rid, frames: frames(), usage: () => usage, producedChars: () => produced };
    },
  };
}
