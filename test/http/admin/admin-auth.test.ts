// Who an admin change is attributed to: the console session travels in the request's own state (set by the admin
// auth hook), so the audit author is read from the request that made the change.
import { describe, expect, it } from 'vitest';
import { newRequestState } from '../../../src/http/front/rules.ts';
import { adminActor } from '../../../src/http/routes/admin/admin-auth.ts';

describe('adminActor', () => {
  it('names the console session carried in the request state, else the admin key', () => {
    const byCookie = { id: 'req_cookie', state: { ...newRequestState(), consoleSession: 'csn_abc' } };
    expect(adminActor(byCookie)).toEqual({ actor: 'console', session: 'csn_abc', requestId: 'req_cookie' });
    const byKey = { id: 'req_key', state: newRequestState() };
    expect(adminActor(byKey)).toEqual({ actor: 'admin', requestId: 'req_key' });
  });
});
