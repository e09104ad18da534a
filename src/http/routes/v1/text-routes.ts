// Chat, responses, messages and embeddings around the DashScope text adapter (built in src/compose.ts). These are
// the hot routes: the text lane (src/http/lane/text-lane.ts) serves them straight from node:http, ahead of Fastify.
import type { DashscopeTextAdapter } from '../../../adapters/dashscope/compat-chat-adapter.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import type { LaneHandler } from '../../lane/text-lane.ts';
import { chatRoute } from './chat.ts';
import { embeddingsRoute } from './embeddings.ts';
import { messagesRoute } from './messages.ts';
import { responsesRoute } from './responses.ts';

/** The handlers of the route table's lane rows, by path. */
export function textRoutes(deps: GatewayDeps, ds: DashscopeTextAdapter): Record<string, LaneHandler> {
  return {
    '/v1/chat/completions': chatRoute(deps, ds),
    '/v1/responses': responsesRoute(deps, ds.responses),
    '/v1/messages': messagesRoute(deps, ds.messages),
    '/v1/embeddings': embeddingsRoute(deps, ds.embeddings),
  };
}
