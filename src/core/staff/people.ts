// Staff people (admin API): made with a first personal key, listed, read with their keys, given another role, disabled;
// their keys added, rotated and revoked. Every change is audited; a key's secret is shown only in the answer that
// made it.
import { newId } from '../../auth/token-secret.ts';
import { decodeCursor, encodeCursor } from '../../contracts/cursor.ts';
import { optInt, optString, reqString } from '../../contracts/fields.ts';
import { createPersonBody, newKeyBody, personPatchBody, rotateKeyBody } from '../admin/bodies/users.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { JsonObject } from '../../json/json.ts';
import { isUniqueViolation } from '../../store/store-errors.ts';
import type { PersonPatch, PersonRecord, StaffKeyRecord, StaffRepo } from '../../store/repos/staff.ts';
import type { AuditRepo } from '../../store/repos/audit.ts';
import { audit, type Actor } from '../admin/deps.ts';
import { pageOf, type Page } from '../admin/lists.ts';
import { DEFAULT_KEY_DAYS, MAX_KEY_DAYS, makeKey, type NewKey } from './keys.ts';
import type { Role } from './roles.ts';

export interface StaffDeps {
  readonly repos: { readonly staff: StaffRepo; readonly audit: AuditRepo };
}

export interface KeyView {
  id: string;
  name: string | null;
  prefix: string;
  state: 'live' | 'expired' | 'revoked';
  expires_at: number;
  revoked_at: number | null;
  created_at: number;
}

export interface PersonView {
  id: string;
  name: string;
  email: string;
  role: Role;
  disabled: boolean;
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A key just made: its view and, this once, its secret. */
export type CreatedKeyView = KeyView & { secret: string };

export function keyView(k: StaffKeyRecord, now = Date.now()): KeyView {
  const state = k.revokedAt !== null ? 'revoked' : k.expiresAt <= now ? 'expired' : 'live';
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    state,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
    created_at: k.createdAt,
  };
}

export function personView(p: PersonRecord): PersonView {
  return {
    id: p.id,
    name: p.name,
    email: p.email,
    role: p.role as Role,
    disabled: p.disabledAt !== null,
    disabled_at: p.disabledAt,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

const createdKey = (k: NewKey): CreatedKeyView => ({ ...keyView(k.record), secret: k.secret });

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function email(o: JsonObject): string {
  const v = reqString(o, 'email', { max: 320 }).trim().toLowerCase();
  if (!EMAIL.test(v))
    throw new GatewayError('invalid_parameter', 'email must be an e-mail address', { param: 'email' });
  return v;
}

function name(o: JsonObject, key: string): string {
  const v = reqString(o, key, { max: 200, name: true }).trim();
  return v;
}

/** A key's name and lifetime in days (1 to 3650, 90 by default). */
function keyFields(o: JsonObject, nameKey: string): { name: string | null; days: number } {
  const n = optString(o, nameKey, { max: 200, name: true })?.trim();
  return { name: n || null, days: optInt(o, 'expires_in_days', 1, MAX_KEY_DAYS) ?? DEFAULT_KEY_DAYS };
}

export interface CreatePersonInput {
  name: string;
  email: string;
  role: Role;
  key: { name: string | null; days: number };
}

// The shapes and unknown fields are the schemas' (admin/bodies/users.ts); the rules after them are not JSON Schema's.
export function parseCreatePerson(body: unknown): CreatePersonInput {
  const o = createPersonBody(body);
  return { name: name(o, 'name'), email: email(o), role: o.role, key: keyFields(o, 'key_name') };
}

export function parsePersonPatch(body: unknown): PersonPatch & { disabled?: boolean } {
  const o = personPatchBody(body);
  const out: PersonPatch & { disabled?: boolean } = {};
  if (o.name !== undefined) out.name = name(o, 'name');
  if (o.role !== undefined) out.role = o.role;
  if (o.disabled !== undefined) out.disabled = o.disabled;
  if (Object.keys(out).length === 0)
    throw new GatewayError('invalid_request', 'Nothing to change: send name, role or disabled');
  return out;
}

export function parseNewKey(body: unknown): { name: string | null; days: number } {
  // No body at all is a key with the defaults.
  return keyFields(newKeyBody(body ?? {}), 'name');
}

/** A key rotation's body: none, or `{"expires_in_days": n}` (absent: the rotation keeps the default lifetime). */
export function parseRotateKey(body: unknown): number | undefined {
  return rotateKeyBody(body ?? {}).expires_in_days ?? undefined;
}

export async function createPerson(
  deps: StaffDeps,
  by: Actor,
  input: CreatePersonInput,
  now = Date.now(),
): Promise<PersonView & { key: CreatedKeyView }> {
  if (await deps.repos.staff.personByEmail(input.email)) throw emailTaken(input.email);
  const person: PersonRecord = {
    id: newId('usr'),
    name: input.name,
    email: input.email,
    role: input.role,
    disabledAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const key = makeKey(person.id, input.key.name, input.key.days, now);
  try {
    await deps.repos.staff.createPerson(person, { ...key.record, secretHash: key.secretHash });
  } catch (e) {
    if (isUniqueViolation(e)) throw emailTaken(input.email);
    throw e;
  }
  await audit(deps, by, 'user.create', person.id, { email: person.email, role: person.role, key_id: key.record.id });
  return { ...personView(person), key: createdKey(key) };
}

const emailTaken = (e: string) =>
  new GatewayError('conflict', `A staff person with the e-mail ${e} exists already`, { param: 'email' });

export async function getPerson(deps: StaffDeps, id: string): Promise<PersonRecord> {
  const p = await deps.repos.staff.person(id);
  if (!p) throw new GatewayError('not_found', `Staff person ${id} not found`);
  return p;
}

/** A person and their keys (never a secret). */
export async function personWithKeys(deps: StaffDeps, id: string): Promise<PersonView & { keys: KeyView[] }> {
  const p = await getPerson(deps, id);
  const keys = await deps.repos.staff.keys(id);
  return { ...personView(p), keys: keys.map((k) => keyView(k)) };
}

export async function personPage(deps: StaffDeps, limit: number, cursor?: string): Promise<Page<PersonView>> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor, ['n', 's']);
  const rows = await deps.repos.staff.page(
    limit + 1,
    after && { createdAt: after[0] as number, id: after[1] as string },
  );
  const { data, more, next } = pageOf(rows, limit, (p) => encodeCursor([p.createdAt, p.id]));
  return { data: data.map(personView), has_more: more, ...(next !== null ? { next_cursor: next } : {}) };
}

export async function updatePerson(
  deps: StaffDeps,
  by: Actor,
  id: string,
  patch: PersonPatch & { disabled?: boolean },
  now = Date.now(),
): Promise<PersonView> {
  const before = await getPerson(deps, id);
  const { disabled, ...rest } = patch;
  const change: PersonPatch = { ...rest };
  if (disabled !== undefined) change.disabledAt = disabled ? (before.disabledAt ?? now) : null;
  const after = await deps.repos.staff.updatePerson(id, change, now);
  if (!after) throw new GatewayError('not_found', `Staff person ${id} not found`);
  await audit(deps, by, 'user.update', id, {
    ...(rest.name !== undefined ? { name: rest.name } : {}),
    ...(rest.role !== undefined ? { role: { from: before.role, to: rest.role } } : {}),
    ...(disabled !== undefined ? { disabled } : {}),
  });
  return personView(after);
}

export async function addKey(
  deps: StaffDeps,
  by: Actor,
  personId: string,
  fields: { name: string | null; days: number },
  now = Date.now(),
): Promise<CreatedKeyView> {
  const p = await getPerson(deps, personId);
  if (p.disabledAt !== null) throw new GatewayError('conflict', `Staff person ${personId} is disabled`);
  const key = makeKey(personId, fields.name, fields.days, now);
  await deps.repos.staff.addKey({ ...key.record, secretHash: key.secretHash });
  await audit(deps, by, 'user.key.create', personId, { key_id: key.record.id, expires_at: key.record.expiresAt });
  return createdKey(key);
}

/** A new key in place of `keyId`, which stops working at once; the new one keeps its name. */
export async function rotateKey(
  deps: StaffDeps,
  by: Actor,
  personId: string,
  keyId: string,
  days: number | undefined,
  now = Date.now(),
): Promise<CreatedKeyView> {
  const p = await getPerson(deps, personId);
  if (p.disabledAt !== null) throw new GatewayError('conflict', `Staff person ${personId} is disabled`);
  const old = await deps.repos.staff.key(personId, keyId);
  if (!old) throw new GatewayError('not_found', `Staff key ${keyId} not found`);
  if (old.revokedAt !== null) throw new GatewayError('conflict', `Staff key ${keyId} is revoked`);
  const key = makeKey(personId, old.name, days ?? DEFAULT_KEY_DAYS, now);
  if (!(await deps.repos.staff.rotateKey(personId, keyId, { ...key.record, secretHash: key.secretHash }, now)))
    throw new GatewayError('conflict', `Staff key ${keyId} is revoked`);
  await audit(deps, by, 'user.key.rotate', personId, { key_id: keyId, new_key_id: key.record.id });
  return createdKey(key);
}

export async function revokeKey(deps: StaffDeps, by: Actor, personId: string, keyId: string): Promise<KeyView> {
  await getPerson(deps, personId);
  const old = await deps.repos.staff.key(personId, keyId);
  if (!old) throw new GatewayError('not_found', `Staff key ${keyId} not found`);
  if (old.revokedAt !== null) throw new GatewayError('conflict', `Staff key ${keyId} is revoked already`);
  await deps.repos.staff.revokeKey(personId, keyId);
  await audit(deps, by, 'user.key.revoke', personId, { key_id: keyId });
  return keyView((await deps.repos.staff.key(personId, keyId))!);
}
