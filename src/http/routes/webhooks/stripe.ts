// POST /webhooks/stripe: Stripe's event deliveries (core/credit/stripe.ts). No bearer token: the Stripe-Signature
// header, checked against the raw body, is the credential, so this scope keeps the body as bytes.
import { receiveStripe } from '../../../core/credit/stripe.ts';
import type { Scope } from '../../front/route-row.ts';
import { fastifyRoute } from '../../front/route-row.ts';

export const WEBHOOKS_SCOPE: Scope = {
  prefix: '/webhooks',
  setup(scope) {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  },
};

export const stripe = fastifyRoute(({ deps }) => async (req) => {
  const signature = req.headers['stripe-signature'];
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  return receiveStripe(deps, body, typeof signature === 'string' ? signature : undefined, req.id);
});
