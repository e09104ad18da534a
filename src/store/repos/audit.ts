import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { parseJson } from '../json.ts';

export interface AuditEntry {
  actor: string;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown> | null;
  requestId?: string | null;
  /** The staff person behind the change (migration 060). */
  personId?: string | null;
  /** The admin key used: a personal key's id, or `admin-key`. */
  keyId?: string | null;
}

/** A listed line: the person's name read beside it (null when it names none, or no longer one that exists). */
export type AuditLine = AuditEntry & { id: number; at: number; personName: string | null };

export interface AuditFilter {
  beforeId?: number | undefined;
  action?: string | undefined;
  actor?: string | undefined;
  target?: string | undefined;
  person?: string | undefined;
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
        person_id: e.personId ?? null,
        key_id: e.keyId ?? null,
      })
      .execute();
  }

  /** Newest first; `beforeId` pages on from an earlier page's last entry; the rest filter by equality. */
  async list(limit = 100, f: AuditFilter = {}): Promise<AuditLine[]> {
    let q = this.db
      .selectFrom('audit_log as a')
      .leftJoin('staff_people as p', 'p.id', 'a.person_id')
      .selectAll('a')
      .select('p.name as person_name');
    if (f.beforeId !== undefined) q = q.where('a.id', '<', f.beforeId);
    if (f.action !== undefined) q = q.where('a.action', '=', f.action);
    // `console` names every console session (stored as `console:<session id>`).
    if (f.actor === 'console') q = q.where('a.actor', 'like', 'console:%');
    else if (f.actor !== undefined) q = q.where('a.actor', '=', f.actor);
    if (f.target !== undefined) q = q.where('a.target', '=', f.target);
    if (f.person !== undefined) q = q.where('a.person_id', '=', f.person);
    const rows = await q.orderBy('a.id', 'desc').limit(limit).execute();
    return rows.map((r) => ({
      id: Number(r.id),
      at: Number(r.at),
      actor: r.actor,
      action: r.action,
      target: r.target,
      detail: parseJson<Record<string, unknown>>(r.detail),
      requestId: r.request_id,
      personId: r.person_id,
      keyId: r.key_id,
      personName: r.person_name,
    }));
  }
}
