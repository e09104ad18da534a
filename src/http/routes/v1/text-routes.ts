// Chat, responses, messages and embeddings around the DashScope text adapter (built in src/compose.ts). These are
// the hot routes: the text lane (src/http/lane/text-lane.ts) serves them straight from node:http, ahead of Fastify.
import type { DashscopeTextAdapter } from '../../../adapters/dashscope/compat-chat-adapter.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import type { LaneRoute } from '../../lane/text-lane.ts';
import { chatRoute } from './chat.ts';
import { embeddingsRoute } from './embeddings.ts';
import { messagesRoute } from './messages.ts';
import { responsesRoute } from './responses.ts';

export function textRoutes(deps: GatewayDeps, ds: DashscopeTextAdapter): LaneRoute[] {
  return [
    { path: '/v1/chat/completions', handler: chatRoute(deps, ds) },
    { path: '/v1/responses', handler: responsesRoute(deps, ds.responses) },
    { path: '/v1/messages', handler: messagesRoute(deps, ds.messages) },
    { path: '/v1/embeddings', handler: embeddingsRoute(deps, ds.embeddings) },
  ];
}
