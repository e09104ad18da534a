import type { FastifyInstance } from 'fastify';
import { hashToken, newId, newTokenSecret } from '../../../auth/token-secret.ts';
import { isObject, optInt, optString, optStringArray, reqString } from '../../../contracts/fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { TokenRecord } from '../../../store/repos/tokens.ts';
import type { AppDeps } from '../../deps.ts';

export function publicToken(t: TokenRecord) {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    models: t.models,
    quota: t.quota,
    spent: t.spent,
    held: t.held,
    rpm_limit: t.rpmLimit,
    concurrency_limit: t.concurrencyLimit,
    expires_at: t.expiresAt,
    revoked_at: t.revokedAt,
    created_at: t.createdAt,
  };
}

export interface CreateTokenInput {
  name: string;
  models?: string[] | undefined;
  quota?: number | undefined;
  expiresAt?: number | undefined;
  rpmLimit?: number | undefined;
  concurrencyLimit?: number | undefined;
}

/** Shared by the admin API and the CLI: returns the record and the secret (shown once). */
export async function createToken(deps: Pick<AppDeps, 'repos' | 'catalogue'>, input: CreateTokenInput): Promise<{ record: TokenRecord; secret: string }> {
  for (const m of input.models ?? []) {
    if (!deps.catalogue.resolve(m)) throw new GatewayError('invalid_parameter', `Unknown model in allow-list: ${m}`, { param: 'models' });
  }
  const secret = newTokenSecret();
  const record = await deps.repos.tokens.create({
    id: newId('tok'),
    name: input.name,
    secretHash: hashToken(secret),
    prefix: secret.slice(0, 7),
    // Historical aliases are stored under their canonical name, the name visibility checks compare.
    models: input.models ? [...new Set(input.models.map((m) => deps.catalogue.canonicalName(m)))] : null,
    quota: input.quota ?? null,
    expiresAt: input.expiresAt ?? null,
    rpmLimit: input.rpmLimit ?? null,
    concurrencyLimit: input.concurrencyLimit ?? null,
  });
  return { record, secret };
}

export function parseCreateToken(body: unknown): CreateTokenInput {
  if (!isObject(body)) throw new GatewayError('invalid_request', 'Request body must be a JSON object');
  const name = reqString(body, 'name', { max: 200 });
  const models = optStringArray(body, 'models', { maxItems: 1000 });
  const quota = optInt(body, 'quota', 0, Number.MAX_SAFE_INTEGER);
  const expiresAt = optInt(body, 'expires_at', 0, Number.MAX_SAFE_INTEGER);
  // Milliseconds since the epoch, like every timestamp here; a past value (or seconds by mistake) is refused.
  if (expiresAt !== undefined && expiresAt <= Date.now()) {
    throw new GatewayError('invalid_parameter', 'expires_at must be a future time in milliseconds since the epoch', { param: 'expires_at' });
  }
  const rpmLimit = optInt(body, 'rpm_limit', 1, 1_000_000);
  const concurrencyLimit = optInt(body, 'concurrency_limit', 1, 100_000);
  optString(body, 'description');
  return { name, models, quota, expiresAt, rpmLimit, concurrencyLimit };
}

export function registerTokenRoutes(scope: FastifyInstance, deps: AppDeps): void {
  scope.post('/tokens', async (req, reply) => {
    const input = parseCreateToken(req.body);
    const { record, secret } = await createToken(deps, input);
    await deps.repos.audit.write({ actor: 'admin', action: 'token.create', target: record.id, detail: { name: record.name, models: record.models, quota: record.quota }, requestId: req.id });
    const { id, name, models, quota, expiresAt, createdAt } = record;
    return reply.code(201).send({ id, name, token: secret, models, quota, expires_at: expiresAt, created_at: createdAt });
  });

  scope.get('/tokens', async () => ({ data: (await deps.repos.tokens.list()).map(publicToken) }));

  scope.get<{ Params: { id: string } }>('/tokens/:id', async (req) => {
    const t = await deps.repos.tokens.get(req.params.id);
    if (!t) throw new GatewayError('not_found', 'Token not found');
    return publicToken(t);
  });

  scope.delete<{ Params: { id: string } }>('/tokens/:id', async (req) => {
    const hash = await deps.repos.tokens.revoke(req.params.id);
    if (!hash) throw new GatewayError('not_found', 'Token not found');
    deps.tokenAuth.invalidateHash(hash);
    deps.cluster.publish({ kind: 'token-revoked', hash });
    await deps.repos.audit.write({ actor: 'admin', action: 'token.revoke', target: req.params.id, requestId: req.id });
    const t = await deps.repos.tokens.get(req.params.id);
    return publicToken(t!);
  });
}
