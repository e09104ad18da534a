// Selection sessions: our id ↔ the upstream's, bound to the creating token and the channel (upstream
// account) that holds it, valid 24 hours from creation — enforced here, not left to the upstream.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { GatewayError } from '../../errors/gateway-error.ts';
import { parseJson } from '../json.ts';
import type { Database } from '../schema.ts';

export const SESSION_TTL_MS = 24 * 3600 * 1000;

export interface SessionRecord {
  id: string;
  tokenId: string;
  channelId: string;
  upstreamSessionId: string;
  data: unknown;
  createdAt: number;
  expiresAt: number;
}

export class SessionsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async create(
    tokenId: string,
    channelId: string,
    upstreamSessionId: string,
    data: unknown,
    now = Date.now(),
  ): Promise<SessionRecord> {
    const rec: SessionRecord = {
      id: `sess_${randomUUID().replace(/-/g, '')}`,
      tokenId,
      channelId,
      upstreamSessionId,
      data,
      createdAt: now,
      expiresAt: now + SESSION_TTL_MS,
    };
    await this.db
      .insertInto('sessions')
      .values({
        id: rec.id,
        token_id: tokenId,
        channel_id: channelId,
        upstream_session_id: upstreamSessionId,
        data: JSON.stringify(data ?? null),
        created_at: now,
        expires_at: rec.expiresAt,
      })
      .execute();
    return rec;
  }

  /** The caller's live session, or session_not_found (another token's session looks the same) / session_expired. */
  async requireLive(id: string, tokenId: string, now = Date.now()): Promise<SessionRecord> {
    const r = await this.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', id)
      .where('token_id', '=', tokenId)
      .executeTakeFirst();
    if (!r) throw new GatewayError('session_not_found', `Session ${id} not found`, { param: 'session_id' });
    const rec: SessionRecord = {
      id: r.id,
      tokenId: r.token_id,
      channelId: r.channel_id,
      upstreamSessionId: r.upstream_session_id,
      data: parseJson(r.data),
      createdAt: Number(r.created_at),
      expiresAt: Number(r.expires_at),
    };
    if (rec.expiresAt <= now) {
      throw new GatewayError(
        'session_expired',
        `Session ${id} expired at ${new Date(rec.expiresAt).toISOString()} (sessions are valid 24 hours); initialise the video again`,
        { param: 'session_id' },
      );
    }
    return rec;
  }
}
