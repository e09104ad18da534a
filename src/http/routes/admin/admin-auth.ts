import type { FastifyInstance } from 'fastify';
import { safeEqual } from '../../../auth/token-secret.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { Actor } from '../../../core/admin/deps.ts';

/** Admin endpoints take only the admin key, never a client token. */
export function requireAdmin(scope: FastifyInstance, adminKey: string): void {
  scope.addHook('onRequest', async (req) => {
    const h = req.headers.authorization;
    const m = h ? /^Bearer\s+(.+)$/i.exec(h.trim()) : null;
    if (!m) throw new GatewayError('missing_token', 'Admin API requires Authorization: Bearer <admin key>');
    if (!safeEqual(m[1]!.trim(), adminKey)) throw new GatewayError('permission_denied', 'Not an admin key');
  });
}

/** The audit line's author for a change made through the admin API. */
export const adminActor = (req: { id: string }): Actor => ({ actor: 'admin', requestId: req.id });
