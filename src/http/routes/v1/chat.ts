// POST /v1/chat/completions — text and image understanding, streaming and not.
// Image input: a vision model takes image_url parts on the compatible-mode path as they are; a chat model that
// also takes images is sent to the native multimodal path when a request carries an image (core/text-rules.ts).
import type { TextRequest, UpstreamAdapter } from '../../../adapters/types.ts';
import { requireBody } from '../../../contracts/fields.ts';
import { CHAT_FIELDS, knownFieldsOnly } from '../../../contracts/text-fields.ts';
import { isObject } from '../../../json/json.ts';
import { chatCapability, validateChat } from '../../../core/text-rules.ts';
import { isKind, textModel } from '../../../core/text.ts';
import type { Exchange } from '../../exchange.ts';
import type { LaneRoute } from '../../front/route-row.ts';
import { chatErrorFrame, sendComplete, sendStream, type StreamDeps } from './text-reply.ts';

export function chatRoute(
  deps: StreamDeps,
  ds: Required<Pick<UpstreamAdapter, 'chat' | 'visionChat'>>,
): (ex: Exchange) => Promise<void> {
  const isChat = isKind('chat', 'vision');
  // Not an async function: the call's own promise is the answer (one promise layer less per request). The lane
  // turns a synchronous throw into the same error answer.
  return (ex) => {
    const body = knownFieldsOnly(requireBody(ex.body), CHAT_FIELDS);
    const messages = validateChat(body);
    const r = textModel(deps, ex, body, isChat, 'chat completions');
    const cap = chatCapability(r, messages) === 'vision' ? ds.visionChat : ds.chat;
    const so = body.stream_options;
    const treq: TextRequest = {
      body,
      upstreamModel: r.upstreamModel,
      publicModel: r.publicName,
      clientWantsUsage: isObject(so) && so.include_usage === true,
      raw: ex.rawBody,
    };
    if (body.stream === true) return sendStream(deps, ex, r, cap, treq, chatErrorFrame);
    return sendComplete(deps, ex, r, (o) => cap.complete(treq, o));
  };
}

/** The text lane's handler, from the app's text adapter. */
export const chat: LaneRoute = ({ deps, text }) => chatRoute(deps, text);
