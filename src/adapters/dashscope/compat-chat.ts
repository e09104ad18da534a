// OpenAI-compatible chat on DashScope (/compatible-mode/v1/chat/completions). The client body passes through
// with the upstream model name; answers are forwarded as bytes with the model renamed and usage read cheaply.
import { isObject } from '../../json/json.ts';
import type { UpstreamClient } from '../http-client.ts';
import { num, objectAfterKey, renameModel } from '../json-scan.ts';
import { bodyWithModel, spliceTopLevelString, withMemberAppended } from '../json-splice.ts';
import type {
  CallOptions,
  CompleteResult,
  FrameFlow,
  FrameSink,
  StreamResult,
  TextCapability,
  TextRequest,
  TokenUsage,
} from '../types.ts';
import {
  assertJson,
  firstString,
  postDashscopeStream,
  postDashscopeText,
  withContractCacheFields,
} from './compat-chat-common.ts';
import {
  chatStreamCore,
  chatStreamTransformer,
  type ChatStreamOptions,
  type ChatStreamState,
} from './compat-chat-stream.ts';
import { pipeChatStream } from './compat-chat-pipe.ts';
import type { UpstreamStreamResponse } from '../http-stream.ts';

export const COMPAT_CHAT_PATH = '/compatible-mode/v1/chat/completions';

/** chat-style usage → metering usage (cached and cache-creation tokens are counted within prompt_tokens). */
export function chatUsage(u: Record<string, unknown>): TokenUsage {
  const d = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const usage: TokenUsage = {
    kind: 'tokens',
    inputTokens: num(u.prompt_tokens),
    outputTokens: num(u.completion_tokens),
  };
  const cached = num(d.cached_tokens);
  const creation = num(d.cache_creation_input_tokens) || num(u.cache_creation_input_tokens);
  if (cached) usage.cachedTokens = cached;
  if (creation) usage.cacheCreationTokens = creation;
  return usage;
}

const ASK_USAGE = '"stream_options":{"include_usage":true}';

export function compatChatBody(req: TextRequest, stream: boolean): string {
  if (!stream) return bodyWithModel(req);
  // Always ask for stream usage: metering needs it even when the client did not ask. The usual streamed body
  // (stream: true, no stream_options) goes as the client's own text with the model renamed and the option added.
  if (req.raw !== undefined && req.body.stream === true && req.body.stream_options === undefined) {
    const spliced = spliceTopLevelString(req.raw, req.body, 'model', req.upstreamModel);
    if (spliced !== null) return withMemberAppended(spliced, ASK_USAGE);
  }
  const so = { ...(isObject(req.body.stream_options) ? req.body.stream_options : {}), include_usage: true };
  return JSON.stringify({ ...req.body, model: req.upstreamModel, stream: true, stream_options: so });
}

export function compatChat(client: UpstreamClient): TextCapability {
  return {
    // Not async: the upstream call's own promise, continued (one promise layer less on every call).
    complete(req: TextRequest, o: CallOptions): Promise<CompleteResult> {
      return postDashscopeText(client, o, { path: COMPAT_CHAT_PATH, body: compatChatBody(req, false) }).then((res) => {
        const text = res.text;
        const u = objectAfterKey(text, 'usage');
        if (!u) assertJson(text);
        const body = (u && withContractCacheFields(text, u)) ?? text;
        return {
          body: renameModel(body, req.upstreamModel, req.publicModel),
          usage: u ? chatUsage(u) : null,
          upstreamRequestId: res.header('x-request-id') ?? firstString(text, 'id'),
        };
      });
    },

    async stream(req: TextRequest, o: CallOptions): Promise<StreamResult> {
      const res = await postDashscopeStream(client, o, { path: COMPAT_CHAT_PATH, body: compatChatBody(req, true) });
      return new ChatStream(res, {
        upstreamModel: req.upstreamModel,
        publicModel: req.publicModel,
        clientWantsUsage: req.clientWantsUsage === true,
        chatUsage,
      });
    },
  };
}

/** A streamed chat's answer: its state and its two ways out (frames iterated, or pushed), in one object. */
class ChatStream implements StreamResult {
  private readonly st: ChatStreamState;
  readonly upstreamRequestId: string | null;

  constructor(
    private readonly res: UpstreamStreamResponse,
    private readonly opts: ChatStreamOptions,
  ) {
    this.st = { usage: null, produced: 0, rid: res.header('x-request-id'), done: false };
    this.upstreamRequestId = this.st.rid;
  }

  // Made on first use: a piped stream never builds the generator.
  get frames(): AsyncIterable<string> {
    return chatStreamTransformer(this.opts, this.st)(this.res.body);
  }

  pipe(sink: FrameSink): FrameFlow {
    return pipeChatStream(this.res, chatStreamCore(this.opts, this.st), sink);
  }

  usage(): TokenUsage | null {
    return this.st.usage;
  }

  producedChars(): number {
    return this.st.produced;
  }
}
