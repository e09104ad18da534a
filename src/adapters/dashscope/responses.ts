// Responses API on DashScope (/api/v2/apps/protocols/compatible-mode/v1/responses). The body passes through
// with the upstream model name; usage keeps input_tokens_details.cached_tokens as the upstream reported it.
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

export const RESPONSES_PATH = '/api/v2/apps/protocols/compatible-mode/v1/responses';

export function responsesUsage(u: Record<string, unknown>): TokenUsage {
  const d = isObject(u.input_tokens_details) ? u.input_tokens_details : {};
  const usage: TokenUsage = { kind: 'tokens', inputTokens: num(u.input_tokens), outputTokens: num(u.output_tokens) };
  const cached = num(d.cached_tokens);
  const creation = num(d.cache_creation_input_tokens);
  if (cached) usage.cachedTokens = cached;
  if (creation) usage.cacheCreationTokens = creation;
  return usage;
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export function dashscopeResponses(client: UpstreamClient): TextCapability {
  // The route streams only when the client asked (`stream: true`), so the client's text already says so.
  const body = (req: TextRequest, stream: boolean) =>
    stream && req.body.stream !== true
      ? JSON.stringify({ ...req.body, model: req.upstreamModel, stream: true })
      : bodyWithModel(req);
  return {
    async complete(req: TextRequest, o: CallOptions): Promise<CompleteResult> {
      const res = await postDashscope(client, o, { path: RESPONSES_PATH, body: body(req, false) });
      const text = await bodyText(res);
      const u = objectAfterKey(text, 'usage');
      if (!u) assertJson(text);
      return {
        body: renameModel(text, req.upstreamModel, req.publicModel),
        usage: u ? responsesUsage(u) : null,
        upstreamRequestId: headerString(res.headers['x-request-id']) ?? firstString(text, 'id'),
      };
    },

    async stream(req: TextRequest, o: CallOptions): Promise<StreamResult> {
      const res = await postDashscopeStream(client, o, { path: RESPONSES_PATH, body: body(req, true) });
      let usage: TokenUsage | null = null;
      let produced = 0;
      let rid = headerString(res.headers['x-request-id']);
      async function* frames(): AsyncGenerator<string> {
        let terminal = false;
        try {
          for await (const ev of sseEvents(res.body)) {
            const d = ev.data;
            if (d === '[DONE]') continue;
            const type = ev.event ?? firstString(d, 'type') ?? 'message';
            if (type === 'error') throw dashscopeStreamError(d);
            if (type === 'response.created') rid ??= firstString(d, 'id');
            if (TERMINAL.has(type)) {
              terminal = true;
              const u = objectAfterKey(d, 'usage');
              if (u) usage = responsesUsage(u);
            }
            if (type === 'response.output_text.delta' || type === 'response.reasoning_summary_text.delta')
              produced += stringValueLength(d, 'delta');
            // Re-framed in the common SSE spelling (space after the colon) that every client reads.
            yield `event: ${type}\ndata: ${renameModel(d, req.upstreamModel, req.publicModel)}\n\n`;
          }
        } catch (e) {
          throw streamBroke(e);
        }
        if (!terminal) throw new GatewayError('upstream_error', 'The upstream stream ended before it was complete');
      }
      return { upstreamRequestId: rid, frames: frames(), usage: () => usage, producedChars: () => produced };
    },
  };
}
