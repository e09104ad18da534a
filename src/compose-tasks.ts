// The task side of the composition root: every upstream's task drivers, family A's context and where the task work
// runs (its own thread, the event loop, or nowhere).
import type { DestinationStream } from 'pino';
import type { KlingClient } from './adapters/kling/client.ts';
import { UPSTREAMS } from './adapters/upstreams.ts';
import type { Config } from './config/config.ts';
import type { GatewayDeps } from './core/deps.ts';
import { taskSubmitVia } from './core/task-submit.ts';
import { videoObject } from './core/videos.ts';
import type { VidxContext } from './core/vidx/context.ts';
import { upstreamAccountOf } from './routing/upstream-account.ts';
import { SessionsRepo } from './store/repos/sessions.ts';
import { CallbackDispatcher } from './tasks/callbacks.ts';
import { TokenCallbackSigner } from './tasks/callback-signing.ts';
import { newTaskOwner } from './tasks/engine.ts';
import { PollerThread } from './tasks/poller-thread.ts';
import type { BackgroundPoller, Keys, Opened } from './compose-types.ts';

/**
 * Every upstream's task drivers, and family A's context: selection sessions and the client-callback dispatcher.
 * `kick`: who sends client callbacks promptly when a task may have finished (the poller thread's dispatcher, when
 * the task work runs there; else this one's).
 */
export function composeTasks(
  deps: GatewayDeps,
  kling: KlingClient,
  views: typeof import('./core/vidx/views.ts'),
  kick?: () => void,
): VidxContext {
  const cb = deps.config.callbacks;
  const dispatcher = new CallbackDispatcher({
    db: deps.store.db,
    logger: deps.logger,
    render: (t) => (t.family === 'v1' ? videoObject(t) : views.taskView(t)),
    signer: new TokenCallbackSigner(deps.repos.tokens, deps.box),
    options: {
      tickMs: cb.tickMs,
      backoffBaseMs: cb.backoffBaseMs,
      maxAttempts: cb.maxAttempts,
      allowPrivateNetwork: deps.config.allowPrivateNetwork,
    },
    agents: deps.net.agents,
  });
  const clients = { upstream: deps.upstream, kling };
  const wiring = { channels: () => deps.channels.all(), submitVia: taskSubmitVia(deps), upstreamAccountOf };
  for (const u of UPSTREAMS)
    for (const [kind, driver] of u.drivers(clients, wiring)) deps.tasks.registerDriver(kind, driver);
  const callbackKey = deps.box.derive('tollway:kling-callback-url:v1');
  return {
    deps,
    client: kling,
    sessions: new SessionsRepo(deps.store.db),
    callbackKey,
    kick: kick ?? (() => dispatcher.kick()),
    dispatcher,
  };
}

/**
 * Where the task work runs: on a thread with its own store connection (TOLLWAY_TASK_POLLER_THREAD, not for an
 * in-memory SQLite store, which no other connection can see), on the event loop, or nowhere (an API-only instance).
 */
export function pollerThread(config: Config, keys: Keys, o: Opened, sink: DestinationStream): PollerThread | null {
  if (
    !config.tasks.pollerEnabled ||
    !config.tasks.pollerThread ||
    /^sqlite:(\/\/)?:memory:$/.test(o.store.location.url)
  )
    return null;
  // The thread composes its own objects: no tracing there (its spans would have no request to belong to).
  return new PollerThread(
    // One lease owner for every start of the thread: a restarted thread goes on with the tasks its predecessor held
    // (leases are sticky) instead of leaving them until the leases run out.
    {
      config: { ...config, tracing: null },
      ...keys,
      location: o.store.location,
      queryRateMemory: o.queryRateMemory,
      taskOwner: newTaskOwner(),
    },
    sink,
    o.logger,
  );
}

export function inProcessPoller(deps: GatewayDeps, vidx: VidxContext): BackgroundPoller {
  return {
    start: async () => {
      deps.tasks.start();
      vidx.dispatcher.start();
    },
    stop: async () => {
      await vidx.dispatcher.stop();
      await deps.tasks.stop();
    },
  };
}
