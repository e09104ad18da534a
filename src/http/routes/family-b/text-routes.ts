// Registers chat, responses, messages and embeddings around one DashScope text adapter per app.
import type { FastifyInstance } from 'fastify';
import { dashscopeTextAdapter } from '../../../adapters/dashscope/compat-chat-adapter.ts';
import type { AppDeps } from '../../deps.ts';
import { registerChatRoutes } from './chat.ts';
import { registerEmbeddingsRoutes } from './embeddings.ts';
import { registerMessagesRoutes } from './messages.ts';
import { registerResponsesRoutes } from './responses.ts';

export function registerTextRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const ds = dashscopeTextAdapter(deps.upstream);
  registerChatRoutes(scope, deps, ds);
  registerResponsesRoutes(scope, deps, ds.responses);
  registerMessagesRoutes(scope, deps, ds.messages);
  registerEmbeddingsRoutes(scope, deps, ds.embeddings);
}
