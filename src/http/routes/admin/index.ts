// The admin API (/admin): every route takes the admin key or a console session first (admin-auth.ts).
import type { Scope } from '../../front/route-row.ts';
import { useJsonBodyParser } from '../../json-body.ts';
import { requireAdmin } from './admin-auth.ts';

export const ADMIN_SCOPE: Scope = {
  prefix: '/admin',
  setup(scope, { deps }) {
    requireAdmin(scope, deps);
    // An empty JSON body is no body: POST /admin/tokens/{id}/rotate, .../enable and the like need none.
    useJsonBodyParser(scope, 'absent', deps.config);
  },
};
