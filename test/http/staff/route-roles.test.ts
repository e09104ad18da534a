// Every admin route of the route table × every staff role, through the real server: a role the table does
// not allow is refused (403, before the body is read); an allowed one is not. The routes come from the route table,
// so a new admin route without a rule, or without a line in the expectations below, fails here.
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../../src/http/front/route-table.ts';
import { useHarness } from '../../support/harness.ts';

const ROLE_ORDER = ['owner', 'admin', 'operator', 'billing', 'viewer'] as const;
type RoleName = (typeof ROLE_ORDER)[number];

// The role table, route by route (one letter per role, in ROLE_ORDER: y may call it, n may not). owner:
// everything; admin: all but users and the gateway's own keys (channel creation and edits carry upstream keys);
// operator: tokens, accounts, channel health, tasks, the request log — not prices or credit; billing: accounts,
// prices, price groups, credit, bills; viewer: reads only. Everyone but an owner is kept off the users routes.
const MAY: Record<string, string> = {
  'POST /admin/tokens': 'yyynn',
  'GET /admin/tokens': 'yyyyy',
  'GET /admin/tokens/:id': 'yyyyy',
  'PATCH /admin/tokens/:id': 'yyynn',
  'DELETE /admin/tokens/:id': 'yyynn',
  'GET /admin/tokens/:id/usage': 'yyyyy',
  'POST /admin/tokens/:id/rotate': 'yyynn',
  'POST /admin/tokens/:id/callback-secret/rotate': 'yyynn',
  'POST /admin/tokens/:id/topup': 'yynyn',
  'POST /admin/accounts/:id/topup': 'yynyn',
  'POST /admin/credit/batches': 'yynyn',
  'GET /admin/credit/batches': 'yyyyy',
  'GET /admin/credit/batches/:id': 'yyyyy',
  'DELETE /admin/credit/batches/:id': 'yynyn',
  'GET /admin/credit/redemptions': 'yyyyy',
  'GET /admin/credit/payments': 'yyyyy',
  'POST /admin/channels': 'ynnnn',
  'PATCH /admin/channels/:id': 'ynnnn',
  'GET /admin/channels': 'yyyyy',
  'GET /admin/channels/:id': 'yyyyy',
  'GET /admin/channel-kinds': 'yyyyy',
  'DELETE /admin/channels/:id': 'yyynn',
  'GET /admin/channels/:id/capacity': 'yyyyy',
  'POST /admin/channels/:id/test': 'yyynn',
  'POST /admin/channels/:id/disable': 'yyynn',
  'POST /admin/channels/:id/enable': 'yyynn',
  'GET /admin/prices': 'yyyyy',
  'GET /admin/prices/:model': 'yyyyy',
  'PUT /admin/prices/:model': 'yynyn',
  'DELETE /admin/prices/:model': 'yynyn',
  'GET /admin/prices/:model/history': 'yyyyy',
  'GET /admin/price-groups': 'yyyyy',
  'GET /admin/price-groups/:name': 'yyyyy',
  'PUT /admin/price-groups/:name': 'yynyn',
  'GET /admin/audit': 'yyyyy',
  'GET /admin/ledger': 'yyyyy',
  'GET /admin/logs': 'yyyyy',
  'GET /admin/bills': 'yyyyy',
  'GET /admin/reconcile': 'yyyyy',
  'GET /admin/health': 'yyyyy',
  'GET /admin/stats': 'yyyyy',
  'GET /admin/tasks': 'yyyyy',
  'GET /admin/tasks/:id': 'yyyyy',
  'GET /admin/tasks/:id/content': 'yyyyy',
  'POST /admin/tasks/:id/cancel': 'yyynn',
  'POST /admin/accounts': 'yyyyn',
  'GET /admin/accounts': 'yyyyy',
  'GET /admin/accounts/:id': 'yyyyy',
  'PATCH /admin/accounts/:id': 'yyyyn',
  'DELETE /admin/accounts/:id': 'yyyyn',
  'GET /admin/accounts/:id/usage': 'yyyyy',
  'POST /admin/accounts/:id/members': 'yyyyn',
  'GET /admin/accounts/:id/members': 'yyyyy',
  'DELETE /admin/accounts/:id/members/:member': 'yyyyn',
  'POST /admin/webhooks': 'yynnn',
  'GET /admin/webhooks': 'yyyyy',
  'GET /admin/webhooks/:id': 'yyyyy',
  'PATCH /admin/webhooks/:id': 'yynnn',
  'DELETE /admin/webhooks/:id': 'yynnn',
  'GET /admin/webhooks/:id/deliveries': 'yyyyy',
  'POST /admin/webhooks/:id/test': 'yynnn',
  'POST /admin/webhooks/:id/deliveries/:delivery/redeliver': 'yynnn',
  'POST /admin/users': 'ynnnn',
  'GET /admin/users': 'ynnnn',
  'GET /admin/users/:id': 'ynnnn',
  'PATCH /admin/users/:id': 'ynnnn',
  'DELETE /admin/users/:id': 'ynnnn',
  'POST /admin/users/:id/keys': 'ynnnn',
  'POST /admin/users/:id/keys/:key/rotate': 'ynnnn',
  'DELETE /admin/users/:id/keys/:key': 'ynnnn',
};

const ADMIN_ROWS = ROUTES.filter((r) => r.auth === 'admin');
const t = useHarness();

/** A personal key for each role (its person made by the bootstrap key). */
async function roleKeys(tag = 'table'): Promise<Record<RoleName, string>> {
  const out: Partial<Record<RoleName, string>> = {};
  for (const role of ROLE_ORDER) {
    const r = await t.h.admin('/admin/users', {
      method: 'POST',
      json: { name: `The ${role}`, email: `${role}-${tag}@roles.test`, role },
    });
    expect(r.status).toBe(201);
    out[role] = ((await r.json()) as { key: { secret: string } }).key.secret;
  }
  return out as Record<RoleName, string>;
}

describe('admin routes × staff roles', () => {
  it('every admin route of the route table has a rule and an expectation', () => {
    expect(ADMIN_ROWS.length).toBeGreaterThan(50);
    for (const row of ADMIN_ROWS) {
      const name = `${row.method} ${row.path}`;
      expect(row.rule, `${name} has no rule on its route-table row`).toBeDefined();
      expect(MAY[name], `${name} has no line in this test's role table`).toMatch(/^[yn]{5}$/);
    }
  });

  it('each role is refused exactly the routes its table line refuses (403 before the body is read)', async () => {
    const keys = await roleKeys();
    const wrong: string[] = [];
    for (const row of ADMIN_ROWS) {
      const name = `${row.method} ${row.path}`;
      const path = row.path.replace(/:[a-z]+/g, 'nope');
      for (const [i, role] of ROLE_ORDER.entries()) {
        const body = row.method === 'GET' || row.method === 'DELETE' ? {} : { json: {} };
        const r = await t.h.fetch(path, { method: row.method, token: keys[role], ...body });
        const text = await r.text();
        const refused = r.status === 403 && text.includes(`The ${role} role may not`);
        const may = MAY[name]?.[i] === 'y';
        if (refused === may || r.status >= 500) wrong.push(`${role} ${name}: ${r.status} ${text.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("a viewer never sees a secret: a channel's upstream key is only set or not, not its last characters", async () => {
    const keys = await roleKeys('secrets');
    const add = await t.h.admin('/admin/channels', {
      method: 'POST',
      json: { name: 'viewer-masked', kind: 'dashscope', base_url: t.h.sim.url, api_key: 'sk-VIEWER-CANARY-WXYZ' },
    });
    expect(add.status).toBe(201);
    const id = ((await add.json()) as { id: string }).id;
    type Ch = { id: string; keys: Record<string, string | null> };
    const read = async (key: string) => {
      const one = (await (await t.h.fetch(`/admin/channels/${id}`, { token: key })).json()) as Ch;
      const list = (await (await t.h.fetch('/admin/channels', { token: key })).json()) as { data: Ch[] };
      return [one.keys.api_key, list.data.find((c) => c.id === id)!.keys.api_key];
    };
    expect(await read(keys.viewer)).toEqual(['****', '****']);
    expect(await read(keys.admin)).toEqual(['****WXYZ', '****WXYZ']);
  });

  it('the served OpenAPI document lists the roles of every admin operation, and describes the users routes by hand', async () => {
    type Op = { summary: string; 'x-tollway-roles'?: string[] };
    const doc = (await (await t.h.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, Op>> };
    for (const row of ADMIN_ROWS) {
      const op = doc.paths[row.path.replace(/:([a-z]+)/g, '{$1}')]?.[row.method.toLowerCase()];
      const allowed = ROLE_ORDER.filter((_, i) => MAY[`${row.method} ${row.path}`]?.[i] === 'y');
      expect(op?.['x-tollway-roles'], `${row.method} ${row.path}`).toEqual(allowed);
      if (row.path.startsWith('/admin/users')) expect(op!.summary).not.toMatch(/^(GET|POST|PATCH|DELETE) \//);
    }
  });

  it('the bootstrap admin key is an owner: it reaches the users routes', async () => {
    const r = await t.h.admin('/admin/users');
    expect(r.status).toBe(200);
  });
});
