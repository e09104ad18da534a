// Who an admin change is attributed to: the console session and the staff person and key travel in the request's
// own state (set by the admin auth hook), so the audit author is read from the request that made the change.
import { describe, expect, it } from 'vitest';
import { BOOTSTRAP } from '../../../src/core/staff/roles.ts';
import { newRequestState } from '../../../src/http/front/rules.ts';
import { adminActor } from '../../../src/http/routes/admin/admin-auth.ts';

describe('adminActor', () => {
  it('names the console session, the person and the key carried in the request state', () => {
    const staff = { role: 'operator' as const, personId: 'usr_a', keyId: 'skey_b' };
    const byCookie = { id: 'req_cookie', state: { ...newRequestState(), consoleSession: 'csn_abc', staff } };
    expect(adminActor(byCookie)).toEqual({
      actor: 'console',
      session: 'csn_abc',
      requestId: 'req_cookie',
      person: 'usr_a',
      key: 'skey_b',
    });
    const byKey = { id: 'req_key', state: { ...newRequestState(), staff: BOOTSTRAP } };
    expect(adminActor(byKey)).toEqual({ actor: 'admin', requestId: 'req_key', key: 'admin-key' });
  });
});
