// Request body limits per endpoint class (each route's class is in its row: route-table.ts), so a small control
// call cannot be used to push megabytes and uploads get the room they need:
//   control  — family A selection calls, admin API, upstream callbacks: ≤ 256 KiB
//   text     — embeddings (strings only): ≤ 2 MiB
//   chat     — chat/responses/messages (and its token count): TOLLWAY_BODY_LIMIT when the room is taken by inline
//              media; the text outside media (json-size.ts textOutsideMedia) ≤ 4 Mi characters
//   media    — image generation, family A task creation (inline base64 images allowed): TOLLWAY_BODY_LIMIT
//   upload   — image edits and video creation (multipart uploads): TOLLWAY_UPLOAD_BODY_LIMIT; the whole
//              multipart body is bounded by it too (readMultipart), not only each file.
// The smaller classes never exceed TOLLWAY_BODY_LIMIT (an operator lowering it lowers them all).
import type { Config } from '../../config/config.ts';

export type BodyClass = 'control' | 'text' | 'chat' | 'media' | 'upload';

export const CONTROL_LIMIT = 256 * 1024;
export const TEXT_LIMIT = 2 * 1024 * 1024;
/**
 * The text of a chat-style call outside its inline media, in characters: about a million tokens, the longest
 * context offered. Text is what the parse, the checks and the estimate walk; a data URL is one string to them.
 */
export const CHAT_TEXT_LIMIT = 4 * 1024 * 1024;

export function limitOf(body: BodyClass, config: Pick<Config, 'bodyLimit' | 'uploadBodyLimit'>): number {
  switch (body) {
    case 'upload':
      return config.uploadBodyLimit;
    case 'media':
    case 'chat':
      return config.bodyLimit;
    case 'text':
      return Math.min(TEXT_LIMIT, config.bodyLimit);
    default:
      return Math.min(CONTROL_LIMIT, config.bodyLimit);
  }
}

/** The most characters of text outside inline media a body of this class may hold (no bound of its own: Infinity). */
export function textLimitOf(body: BodyClass, config: Pick<Config, 'bodyLimit'>): number {
  return body === 'chat' ? Math.min(CHAT_TEXT_LIMIT, config.bodyLimit) : Number.POSITIVE_INFINITY;
}
