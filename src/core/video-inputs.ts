// Reference media a client sent inline with POST /v1/videos (a file part or a data: URL). The video-synthesis upstream
// takes media only as http(s) URLs it fetches itself (upstream-protocols.md §6, `input.media[].url`), so each is kept
// in the store (both stores alike; any gateway instance can serve it) and handed over as a gateway address signed
// for that one medium, good until it expires. Without the gateway's public address the upstream could not fetch it:
// such a request is refused before any hold.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../auth/secret-box.ts';
import type { InlineMedium } from '../contracts/video-uploads.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Database } from '../store/schema.ts';

export const VIDEO_INPUT_PATH = '/v1/videos/inputs/';
/** Long enough for the upstream to fetch a task's media however long the task waits and runs. */
export const VIDEO_INPUT_TTL_MS = 24 * 3600_000;

export interface VideoInputDeps {
  readonly config: { readonly publicUrl: string | undefined };
  readonly box: Pick<SecretBox, 'derive'>;
  readonly store: { readonly db: Kysely<Database> };
}

const tagOf = (deps: VideoInputDeps, id: string) =>
  createHmac('sha256', deps.box.derive('tollway:video-input-url:v1')).update(`video-input:${id}`).digest('hex');

/**
 * Store the media and give the address of each, by the placeholder that stands for it in the checked request. Expired
 * media are dropped on the way.
 */
export async function storeInlineMedia(
  deps: VideoInputDeps,
  tokenId: string,
  media: readonly InlineMedium[],
  now = Date.now(),
): Promise<Map<string, string>> {
  const urls = new Map<string, string>();
  const first = media[0];
  if (!first) return urls;
  const base = deps.config.publicUrl?.replace(/\/+$/, '');
  if (!base)
    throw new GatewayError(
      'invalid_reference',
      `${first.field}: uploads and data: URLs need the gateway's public address (TOLLWAY_PUBLIC_URL, set by the ` +
        'operator), which the upstream fetches them from; pass a public http(s) URL instead',
      { param: first.field },
    );
  const db = deps.store.db;
  await db.deleteFrom('video_inputs').where('expires_at', '<', now).execute();
  for (const m of media) {
    const id = `vin_${randomUUID().replace(/-/g, '')}`;
    await db
      .insertInto('video_inputs')
      .values({
        id,
        token_id: tokenId,
        content_type: m.contentType,
        bytes: m.data.length,
        data: m.data.toString('base64'),
        created_at: now,
        expires_at: now + VIDEO_INPUT_TTL_MS,
      })
      .execute();
    urls.set(m.placeholder, `${base}${VIDEO_INPUT_PATH}${id}.${m.ext}?sig=${tagOf(deps, id)}`);
  }
  return urls;
}

/** A stored medium for the upstream's fetch: its address (`<id>.<ext>` and the signature) checked, not expired. */
export async function readInlineMedium(
  deps: VideoInputDeps,
  name: string,
  sig: string | undefined,
  now = Date.now(),
): Promise<{ contentType: string; data: Buffer }> {
  const gone = () => new GatewayError('not_found', 'No such video input (or its address has expired)');
  const id = /^(vin_[0-9a-f]{32})\.[a-z0-9]{2,5}$/.exec(name)?.[1];
  if (!id || !sig) throw gone();
  const want = Buffer.from(tagOf(deps, id));
  const given = Buffer.from(sig);
  if (given.length !== want.length || !timingSafeEqual(given, want)) throw gone();
  const row = await deps.store.db
    .selectFrom('video_inputs')
    .select(['content_type', 'data', 'expires_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row || Number(row.expires_at) <= now) throw gone();
  return { contentType: row.content_type, data: Buffer.from(row.data, 'base64') };
}
