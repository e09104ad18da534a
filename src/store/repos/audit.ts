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

  async list(limit = 100): Promise<Array<AuditEntry & { id: number; at: number }>> {
    const rows = await this.db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(limit).execute();
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
