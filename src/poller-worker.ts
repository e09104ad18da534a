// The task poller thread's entry (tasks/poller-thread.ts starts it): composes the background work against its own store
// connection and runs it until told to stop.
import { parentPort, workerData } from 'node:worker_threads';
import { startPoller } from './process-life.ts';
import { niceCurrentThread } from './runtime/thread-priority.ts';
import type { PollerThreadCommand, PollerThreadData, PollerThreadMessage } from './tasks/poller-thread.ts';

const port = parentPort!;
const data = workerData as PollerThreadData;
const send = (m: PollerThreadMessage) => port.postMessage(m);

// A stop asked for while the thread is still composing is applied once it has.
let stopAsked = false;
let poller: Awaited<ReturnType<typeof startPoller>> | null = null;
const stop = () =>
  void (poller?.close() ?? Promise.resolve()).finally(() => {
    send({ stopped: true });
    // Whatever a library left referenced (a socket's keep-alive timer) must not keep the thread alive.
    process.exit(0);
  });
port.on('message', (m: PollerThreadCommand) => {
  if ('event' in m) void poller?.apply(m.event);
  else if ('kick' in m) poller?.kick();
  else if (poller) stop();
  else stopAsked = true;
});

try {
  const tid = niceCurrentThread(data.config.tasks.pollerNice);
  poller = await startPoller(data.config, {
    adminKey: data.adminKey,
    secret: data.secret,
    location: data.location,
    queryRateMemory: data.queryRateMemory,
    taskOwner: data.taskOwner,
    logStream: {
      write: (line: string) => {
        send({ log: line });
        return true;
      },
    },
  });
  send({ ready: true, tid });
  if (stopAsked) stop();
} catch (e) {
  send({ failed: String(e instanceof Error ? e.message : e) });
  // What composing opened before it failed (a pool, a Redis client) must not keep a failed thread alive.
  process.exit(1);
}
