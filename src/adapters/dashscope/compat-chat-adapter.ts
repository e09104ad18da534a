// The DashScope adapter's text capabilities, built once per app around the shared upstream client.
import type { UpstreamClient } from '../http-client.ts';
import type { UpstreamAdapter } from '../types.ts';
import { dashscopeMessages } from './anthropic.ts';
import { compatChat } from './compat-chat.ts';
import { dashscopeEmbeddings } from './embeddings.ts';
import { multimodalChat } from './multimodal.ts';
import { dashscopeResponses } from './responses.ts';

export type DashscopeTextAdapter = Required<
  Pick<UpstreamAdapter, 'chat' | 'visionChat' | 'responses' | 'messages' | 'embeddings'>
>;

export function dashscopeTextAdapter(client: UpstreamClient): DashscopeTextAdapter {
  return {
    chat: compatChat(client),
    visionChat: multimodalChat(client),
    responses: dashscopeResponses(client),
    messages: dashscopeMessages(client),
    embeddings: dashscopeEmbeddings(client),
  };
}
