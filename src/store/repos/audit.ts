import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { parseJson } from '../json.ts';

export interface AuditEntry {
  actor: string;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown> | null;
  requestId?: string | null;
}

export interface AuditFilter {
  beforeId?: number | undefined;
  action?: string | undefined;
  actor?: string | undefined;
  target?: string | undefined;
}

export class AuditRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async write(e: AuditEntry, now = Date.now()): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        at: now,
        actor: e.actor,
        action: e.action,
        target: e.target ?? null,
        detail: e.detail ? JSON.stringify(e.detail) : null,
        request_id: e.requestId ?? null,
      })
      .execute();
  }

  /** Newest first; `beforeId` pages on from an earlier page's last entry; the rest filter by equality. */
  async list(limit = 100, f: AuditFilter = {}): Promise<Array<AuditEntry & { id: number; at: number }>> {
    let q = this.db.selectFrom('audit_log').selectAll();
    if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
    if (f.action !== undefined) q = q.where('action', '=', f.action);
    // `console` names every console session (stored as `console:<session id>`).
    if (f.actor === 'console') q = q.where('actor', 'like', 'console:%');
    else if (f.actor !== undefined) q = q.where('actor', '=', f.actor);
    if (f.target !== undefined) q = q.where('target', '=', f.target);
    const rows = await q.orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({
      id: Number(r.id),
      at: Number(r.at),
      actor: r.actor,
      action: r.action,
      target: r.target,
      detail: parseJson<Record<string, unknown>>(r.detail),
      requestId: r.request_id,
    }));
  }
}
