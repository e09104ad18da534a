// The table of reference media uploaded with POST /v1/videos (core/video-inputs.ts).

/** A reference medium uploaded with POST /v1/videos, served to the upstream until it expires. Migration 045. */
export interface VideoInputsTable {
  id: string;
  token_id: string;
  content_type: string;
  bytes: number;
  /** base64 */
  data: string;
  created_at: number;
  expires_at: number;
}
