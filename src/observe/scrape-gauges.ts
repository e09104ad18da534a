// The gauges read at scrape time (prom-client collect callbacks), never on the request path: circuit breakers, the
// write-behind queues, and the store's open tasks, poll lag, slot queues and open holds.
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { ChannelRegistry } from '../routing/channel-registry.ts';
import type { CircuitBreakers } from '../routing/circuit-breaker.ts';
import type { WriteBacklog } from '../store/group-commit.ts';
import type { GaugesRepo, OpenHolds, OpenTasks, WaitingQueue } from '../store/repos/gauges.ts';
import { splitSlotQueue } from '../routing/task-slots.ts';

export interface MetricsSources {
  channels: ChannelRegistry;
  breakers: CircuitBreakers;
  ledger: WriteBacklog;
  requestLog: WriteBacklog;
  gauges: GaugesRepo;
  logger: Pick<Logger, 'warn'>;
}

const BREAKER_STATE = { closed: 0, open: 1, 'half-open': 2 } as const;

/** What one scrape reads of the store. */
interface StoreRead {
  tasks: OpenTasks;
  holds: OpenHolds[];
  waiting: WaitingQueue[];
}

export function scrapeTimeGauges(registry: Registry, src: MetricsSources): void {
  new Gauge({
    name: 'tollway_circuit_breaker_state',
    help: 'Circuit breaker of each enabled channel: 0 closed, 1 open (out of rotation), 2 half-open (a trial call may go)',
    labelNames: ['channel'],
    registers: [registry],
    collect() {
      this.reset();
      for (const ch of src.channels.all())
        this.set({ channel: ch.name }, BREAKER_STATE[src.breakers.view(ch.id).state]);
    },
  });
  const queues = [
    ['ledger', src.ledger],
    ['request_log', src.requestLog],
  ] as const;
  new Gauge({
    name: 'tollway_write_queue_rows',
    help: 'Rows queued for the store and not yet committed (group commit), by queue',
    labelNames: ['queue'],
    registers: [registry],
    collect() {
      for (const [queue, q] of queues) this.set({ queue }, q.queued);
    },
  });
  new Gauge({
    name: 'tollway_write_queue_lag_seconds',
    help: 'How long the oldest row still queued for the store has waited, by queue (0 when none waits)',
    labelNames: ['queue'],
    registers: [registry],
    collect() {
      for (const [queue, q] of queues) this.set({ queue }, q.lagMs() / 1000);
    },
  });
  storeGauges(registry, src);
}

function storeGauges(registry: Registry, src: MetricsSources): void {
  /** The store reads of the scrape in progress, shared by the gauges that show them. */
  let storeRead: Promise<StoreRead | null> | null = null;
  const read = () => (storeRead ??= readStore(src).finally(() => (storeRead = null)));
  new Gauge({
    name: 'tollway_metrics_store_up',
    help: '1 when this scrape read the store gauges (tasks, holds), 0 when the store did not answer',
    registers: [registry],
    async collect() {
      this.set((await read()) === null ? 0 : 1);
    },
  });
  new Gauge({
    name: 'tollway_tasks_open',
    help: 'Open async tasks by state (database-wide)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      const r = await read();
      if (r) for (const [state, n] of r.tasks.byState) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'tollway_task_poll_lag_seconds',
    help: 'Age of the oldest due task poll: how long past its next_poll_at the most overdue open task is (database-wide; 0 when none is due)',
    registers: [registry],
    async collect() {
      this.reset();
      const r = await read();
      if (r) this.set(r.tasks.earliestDue === null ? 0 : Math.max(0, Date.now() - r.tasks.earliestDue) / 1000);
      // Absent when the store did not answer: reset() puts a label-less gauge back at 0, which would read as
      // "nothing overdue" (and keep a lag alert quiet) exactly when nothing could be read.
      else this.remove({});
    },
  });
  new Gauge({
    name: 'tollway_tasks_waiting',
    help: 'Tasks waiting in the gateway for a parallel-task slot of their upstream account, by account and upstream model version (database-wide)',
    labelNames: ['account', 'model'],
    registers: [registry],
    async collect() {
      this.reset();
      const r = await read();
      if (r) for (const q of r.waiting) this.set(splitSlotQueue(q.queue), q.count);
    },
  });
  new Gauge({
    name: 'tollway_tasks_waiting_oldest_seconds',
    help: 'How long the oldest task waiting for a parallel-task slot has waited, by account and upstream model version',
    labelNames: ['account', 'model'],
    registers: [registry],
    async collect() {
      this.reset();
      const r = await read();
      if (r) for (const q of r.waiting) this.set(splitSlotQueue(q.queue), Math.max(0, Date.now() - q.oldest) / 1000);
    },
  });
  new Gauge({
    name: 'tollway_holds_open',
    help: 'Holds open against token quotas (database-wide), by kind: reservation (a call being answered) or task (an async task running)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      this.reset();
      const r = await read();
      if (r) for (const h of r.holds) this.set({ kind: h.kind }, h.count);
    },
  });
  new Gauge({
    name: 'tollway_holds_open_amount',
    help: 'Micro-units held by open holds (database-wide), by kind',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      this.reset();
      const r = await read();
      if (r) for (const h of r.holds) this.set({ kind: h.kind }, h.amount);
    },
  });
}

async function readStore(src: MetricsSources): Promise<StoreRead | null> {
  try {
    const [tasks, holds, waiting] = await Promise.all([
      src.gauges.openTasks(),
      src.gauges.openHolds(),
      src.gauges.waitingTasks(),
    ]);
    return { tasks, holds, waiting };
  } catch (e) {
    src.logger.warn({ err: String(e) }, 'metrics: store gauges not read');
    return null;
  }
}
