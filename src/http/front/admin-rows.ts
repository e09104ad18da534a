// The admin API's rows of the route table, each group in its area: the area an admin row carries is the staff role
// check's rule (core/staff/roles.ts: a GET reads it, anything else writes it). A new admin route: a row here, and its
// line in test/http/staff/route-roles.test.ts.
import type { Area } from '../../core/staff/roles.ts';
import * as accounts from '../routes/admin/accounts.ts';
import { audit } from '../routes/admin/audit.ts';
import { bills } from '../routes/admin/bills.ts';
import * as channels from '../routes/admin/channels.ts';
import * as credit from '../routes/admin/credit.ts';
import * as members from '../routes/admin/members.ts';
import { ADMIN_SCOPE } from '../routes/admin/index.ts';
import { ledger } from '../routes/admin/ledger.ts';
import { logs } from '../routes/admin/logs.ts';
import * as prices from '../routes/admin/prices.ts';
import { reconcile } from '../routes/admin/reconcile.ts';
import { health, stats } from '../routes/admin/stats.ts';
import * as tasks from '../routes/admin/tasks.ts';
import * as tokens from '../routes/admin/tokens.ts';
import * as users from '../routes/admin/users.ts';
import * as webhooks from '../routes/admin/webhooks.ts';
import type { FastifyRow } from './route-row.ts';
import { rows, type Spec } from './row-builders.ts';

const ADMIN = { family: 'v1', auth: 'admin', scope: ADMIN_SCOPE } as const;
/** Admin rows: each carries its rule (the area its role check reads). */
const admin = (area: Area, specs: Spec[]): FastifyRow[] => rows({ ...ADMIN, rule: { area } }, specs);

export const ADMIN_ROWS: readonly FastifyRow[] = [
  ...admin('tokens', [
    ['POST', '/tokens', tokens.create],
    ['GET', '/tokens', tokens.list],
    ['GET', '/tokens/:id', tokens.one],
    ['PATCH', '/tokens/:id', tokens.update],
    ['DELETE', '/tokens/:id', tokens.revoke],
    ['GET', '/tokens/:id/usage', tokens.usage],
    ['POST', '/tokens/:id/rotate', tokens.rotate],
    ['POST', '/tokens/:id/callback-secret/rotate', tokens.rotateCallback],
  ]),
  ...admin('credit', [
    ['POST', '/tokens/:id/topup', tokens.topup],
    ['POST', '/accounts/:id/topup', accounts.topup],
    ['POST', '/credit/batches', credit.createBatchRoute],
    ['GET', '/credit/batches', credit.batches],
    ['GET', '/credit/batches/:id', credit.batch],
    ['DELETE', '/credit/batches/:id', credit.revokeBatchRoute],
    ['GET', '/credit/redemptions', credit.redemptions],
    ['GET', '/credit/payments', credit.payments],
  ]),
  // A channel's creation and edits carry the gateway's own upstream keys; its health actions do not.
  ...admin('upstream-keys', [
    ['POST', '/channels', channels.create],
    ['PATCH', '/channels/:id', channels.update],
  ]),
  ...admin('channels', [
    ['GET', '/channels', channels.list],
    ['GET', '/channels/:id', channels.one],
    ['GET', '/channel-kinds', channels.kinds],
    ['DELETE', '/channels/:id', channels.disable],
    ['GET', '/channels/:id/capacity', channels.capacity],
    ['POST', '/channels/:id/test', channels.test],
    ['POST', '/channels/:id/disable', channels.disable],
    ['POST', '/channels/:id/enable', channels.enable],
  ]),
  ...admin('prices', [
    ['GET', '/prices', prices.list],
    ['GET', '/prices/:model', prices.one],
    ['PUT', '/prices/:model', prices.set],
    ['DELETE', '/prices/:model', prices.reset],
    ['GET', '/prices/:model/history', prices.history],
    ['GET', '/price-groups', accounts.priceGroups],
    ['GET', '/price-groups/:name', accounts.priceGroup],
    ['PUT', '/price-groups/:name', accounts.putGroup],
  ]),
  ...admin('reports', [
    ['GET', '/audit', audit],
    ['GET', '/ledger', ledger],
    ['GET', '/logs', logs],
    ['GET', '/bills', bills],
    ['GET', '/reconcile', reconcile],
    ['GET', '/health', health],
    ['GET', '/stats', stats],
  ]),
  ...admin('tasks', [
    ['GET', '/tasks', tasks.list],
    ['GET', '/tasks/:id', tasks.one],
    ['GET', '/tasks/:id/content', tasks.content],
    ['POST', '/tasks/:id/cancel', tasks.cancel],
  ]),
  ...admin('accounts', [
    ['POST', '/accounts', accounts.create],
    ['GET', '/accounts', accounts.list],
    ['GET', '/accounts/:id', accounts.one],
    ['PATCH', '/accounts/:id', accounts.update],
    ['DELETE', '/accounts/:id', accounts.revoke],
    ['GET', '/accounts/:id/usage', accounts.usage],
    ['POST', '/accounts/:id/members', members.create],
    ['GET', '/accounts/:id/members', members.list],
    ['DELETE', '/accounts/:id/members/:member', members.revoke],
  ]),
  ...admin('webhooks', [
    ['POST', '/webhooks', webhooks.create],
    ['GET', '/webhooks', webhooks.list],
    ['GET', '/webhooks/:id', webhooks.one],
    ['PATCH', '/webhooks/:id', webhooks.update],
    ['DELETE', '/webhooks/:id', webhooks.remove],
    ['GET', '/webhooks/:id/deliveries', webhooks.deliveries],
    ['POST', '/webhooks/:id/test', webhooks.test],
    ['POST', '/webhooks/:id/deliveries/:delivery/redeliver', webhooks.redeliverOne],
  ]),
  ...admin('users', [
    ['POST', '/users', users.create],
    ['GET', '/users', users.list],
    ['GET', '/users/:id', users.one],
    ['PATCH', '/users/:id', users.update],
    ['DELETE', '/users/:id', users.disable],
    ['POST', '/users/:id/keys', users.addKey],
    ['POST', '/users/:id/keys/:key/rotate', users.rotateKey],
    ['DELETE', '/users/:id/keys/:key', users.revokeKey],
  ]),
];
