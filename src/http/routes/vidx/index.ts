import type { FastifyInstance } from 'fastify';
import { KlingClient } from '../../../adapters/kling/client.ts';
import { KlingJwtSigner } from '../../../adapters/kling/jwt.ts';
import { KlingTaskDriver } from '../../../adapters/kling/task-driver.ts';
import { CallbackDispatcher } from '../../../tasks/callbacks.ts';
import type { AppDeps } from '../../deps.ts';
import type { FamilyAContext } from './context.ts';
import { registerMultiElements } from './multi-elements.ts';
import { registerOmniVideo } from './omni-video.ts';
import { SessionsRepo } from '../../../store/repos/sessions.ts';
import { KINDS, taskView } from './task-view.ts';
import { registerText2Video } from './text2video.ts';
import { registerUpstreamCallbacks } from './upstream-callback.ts';

/** Per-app family A state, shared by the /vidx/v1 routes and the /vidx/callbacks receiver. */
const contexts = new WeakMap<AppDeps, FamilyAContext>();

function contextFor(deps: AppDeps): FamilyAContext {
  let ctx = contexts.get(deps);
  if (ctx) return ctx;
  const client = new KlingClient(deps.upstream, new KlingJwtSigner());
  const cb = deps.config.callbacks;
  const dispatcher = new CallbackDispatcher({
    db: deps.store.db,
    logger: deps.logger,
    render: taskView,
    options: {
      tickMs: cb.tickMs,
      backoffBaseMs: cb.backoffBaseMs,
      maxAttempts: cb.maxAttempts,
      allowPrivateNetwork: deps.config.allowPrivateNetwork,
      // Per-deployment signing key: TOLLWAY_CALLBACK_SECRET, else derived from TOLLWAY_SECRET (README).
      secret: cb.secret ?? deps.box.derive('tollway:callback-signing:v1'),
    },
  });
  ctx = { deps, client, sessions: new SessionsRepo(deps.store.db), callbackKey: deps.box.derive('tollway:kling-callback-url:v1'), kick: () => dispatcher.kick(), dispatcher };
  contexts.set(deps, ctx);
  deps.tasks.registerDriver(KINDS.text2video, new KlingTaskDriver(client, 'text2video'));
  deps.tasks.registerDriver(KINDS.edit, new KlingTaskDriver(client, 'multi-elements'));
  deps.tasks.registerDriver(KINDS.omni, new KlingTaskDriver(client, 'omni-video'));
  return ctx;
}

// Family A (/vidx/v1): vendor-style video API routes register here.
export async function registerFamilyARoutes(scope: FastifyInstance, deps: AppDeps): Promise<void> {
  const ctx = contextFor(deps);
  registerText2Video(scope, ctx);
  registerMultiElements(scope, ctx);
  registerOmniVideo(scope, ctx);
  // The client-callback dispatcher runs with the task poller (tests may turn both off).
  if (deps.config.tasks.pollerEnabled) scope.addHook('onReady', async () => ctx.dispatcher.start());
  scope.addHook('onClose', async () => ctx.dispatcher.stop());
}

/** /vidx/callbacks: upstream completion notices (no bearer token; see upstream-callback.ts). */
export async function registerFamilyACallbackRoutes(scope: FastifyInstance, deps: AppDeps): Promise<void> {
  registerUpstreamCallbacks(scope, contextFor(deps));
}
