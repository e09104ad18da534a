import { decodeCursor, encodeCursor } from '../../../contracts/cursor.ts';
import { qInt, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { pageOf } from '../../../core/admin/lists.ts';
import { fastifyRoute } from '../../front/route-row.ts';

const PARAMS = ['limit', 'cursor', 'action', 'actor', 'target', 'person'] as const;

export const audit = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const q = req.query;
  qOnly(q, PARAMS);
  const limit = qInt(q, 'limit', 1, 1000, 100)!;
  const cursor = qString(q, 'cursor', 400);
  const filter = {
    beforeId: cursor === undefined ? undefined : (decodeCursor(cursor, ['n'])[0] as number),
    action: qString(q, 'action'),
    actor: qString(q, 'actor'),
    target: qString(q, 'target'),
    person: qString(q, 'person', 64),
  };
  const { data, more, next } = pageOf(await deps.repos.audit.list(limit + 1, filter), limit, (r) =>
    encodeCursor([r.id]),
  );
  // snake_case like every other admin answer
  return {
    data: data.map((r) => ({
      id: r.id,
      at: r.at,
      actor: r.actor,
      action: r.action,
      target: r.target ?? null,
      detail: r.detail ?? null,
      request_id: r.requestId ?? null,
      person: r.personId ? { id: r.personId, name: r.personName } : null,
      key_id: r.keyId ?? null,
    })),
    has_more: more,
    ...(next !== null ? { next_cursor: next } : {}),
  };
});
