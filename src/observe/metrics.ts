// The gateway's Prometheus metrics (GET /metrics, docs/operations.md#metrics). Two kinds:
// - counted on the way: requests by route, model and status, and upstream attempts by channel. Their label sets
//   are bound once to cells (cells.ts) and cached here in nested maps, so a request costs a few map reads and
//   additions, no label object and no string;
// - read at scrape time (prom-client collect callbacks): circuit breakers, the write-behind queues, and the store's
//   open tasks, poll lag and open holds. Nothing of these is computed on the request path.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { isGatewayError } from '../errors/gateway-error.ts';
import type { ChannelRegistry } from '../routing/channel-registry.ts';
import type { CircuitBreakers } from '../routing/circuit-breaker.ts';
import type { AttemptObserver } from '../routing/failover.ts';
import type { WriteBacklog } from '../store/group-commit.ts';
import type { GaugesRepo, OpenHolds, OpenTasks, WaitingQueue } from '../store/repos/gauges.ts';
import { splitSlotQueue } from '../routing/task-slots.ts';
import { CellCounter, CellHistogram, type CounterCell, type HistogramCell } from './cells.ts';

export interface MetricsSources {
  channels: ChannelRegistry;
  breakers: CircuitBreakers;
  ledger: WriteBacklog;
  requestLog: WriteBacklog;
  gauges: GaugesRepo;
  logger: Pick<Logger, 'warn'>;
}

// Seconds. Text calls answer in milliseconds; streams, image and video creation take up to minutes.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const BREAKER_STATE = { closed: 0, open: 1, 'half-open': 2 } as const;
/** The route label of a request whose path matched no route (paths are not labels: they are unbounded). */
export const UNMATCHED_ROUTE = 'unmatched';

interface RouteSeries {
  label: string;
  /** By model, then status (a number) or, for an error answer, `status code` (the catalogue's error code). */
  byModel: Map<string, Map<number | string, HistogramCell>>;
}

interface ChannelSeries {
  ok: HistogramCell;
  error: HistogramCell;
  errors: Map<string, CounterCell>;
}

// Process metrics (CPU, memory, event-loop delay, GC) are the process's, not a gateway's: one set per process.
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (processRegistry === null) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: CellHistogram;
  private readonly attempts: CellHistogram;
  private readonly attemptErrors: CellCounter;
  private readonly routes = new Map<string, RouteSeries>();
  private readonly unmatched: RouteSeries = { label: UNMATCHED_ROUTE, byModel: new Map() };
  private readonly channels = new Map<string, ChannelSeries>();
  private isRoute: (path: string) => boolean = () => true;
  /** The store reads of the scrape in progress, shared by the gauges that show them. */
  private storeRead: Promise<{ tasks: OpenTasks; holds: OpenHolds[]; waiting: WaitingQueue[] } | null> | null = null;

  constructor(private readonly src: MetricsSources) {
    const registry = this.registry;
    this.requests = new CellHistogram({
      name: 'tollway_request_duration_seconds',
      help: 'Time from the request to the end of its answer, by matched route, public model, HTTP status and error code',
      labelNames: ['route', 'model', 'status', 'code'],
      buckets: LATENCY_BUCKETS,
      registry,
    });
    const requests = this.requests;
    new CellCounter(
      {
        name: 'tollway_requests_total',
        help: "Requests answered, by matched route, public model, HTTP status and error code (the catalogue's; empty for a success)",
        labelNames: ['route', 'model', 'status', 'code'],
        registry,
      },
      function* () {
        for (const c of requests.allCells()) yield { labels: c.labels, value: c.count };
      },
    );
    this.attempts = new CellHistogram({
      name: 'tollway_upstream_attempt_duration_seconds',
      help: 'Upstream attempts of client calls by channel and outcome (ok or error), until the answer or its first byte',
      labelNames: ['channel', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registry,
    });
    this.attemptErrors = new CellCounter({
      name: 'tollway_upstream_errors_total',
      help: 'Failed upstream attempts of client calls by channel and error code',
      labelNames: ['channel', 'code'],
      registry,
    });
    this.scrapeTimeGauges();
    this.upstreamAttempt = (ch, ms, error) => this.attempt(ch.name, ms, error);
  }

  /** Told of every upstream attempt by failover (routing/failover.ts). */
  readonly upstreamAttempt: AttemptObserver;

  /** Which endpoints are routes (the app knows once its routes are registered); any other path is `unmatched`. */
  knowRoutes(isRoute: (path: string) => boolean): void {
    this.isRoute = isRoute;
  }

  /**
   * One answered request (front/record.ts): `ms` from its arrival to the end of its answer. Returns its route label.
   */
  request(endpoint: string, model: string | null, status: number, ms: number, code: string | null = null): string {
    const route = this.routes.get(endpoint) ?? this.routeSeries(endpoint);
    const m = model ?? '';
    let byStatus = route.byModel.get(m);
    if (byStatus === undefined) {
      byStatus = new Map();
      route.byModel.set(m, byStatus);
    }
    const key = code === null ? status : `${status} ${code}`;
    let cell = byStatus.get(key);
    if (cell === undefined) {
      cell = this.requests.cell({ route: route.label, model: m, status: String(status), code: code ?? '' });
      byStatus.set(key, cell);
    }
    cell.observe(ms / 1000);
    return route.label;
  }

  private routeSeries(endpoint: string): RouteSeries {
    // Unknown paths share one series and are not remembered one by one.
    if (!this.isRoute(endpoint)) return this.unmatched;
    const r: RouteSeries = { label: endpoint, byModel: new Map() };
    this.routes.set(endpoint, r);
    return r;
  }

  private attempt(channel: string, ms: number, error: unknown): void {
    let s = this.channels.get(channel);
    if (s === undefined) {
      s = {
        ok: this.attempts.cell({ channel, outcome: 'ok' }),
        error: this.attempts.cell({ channel, outcome: 'error' }),
        errors: new Map(),
      };
      this.channels.set(channel, s);
    }
    if (error === null) {
      s.ok.observe(ms / 1000);
      return;
    }
    s.error.observe(ms / 1000);
    const code = isGatewayError(error) ? error.code : 'internal_error';
    let c = s.errors.get(code);
    if (c === undefined) {
      c = this.attemptErrors.cell({ channel, code });
      s.errors.set(code, c);
    }
    c.value++;
  }

  private scrapeTimeGauges(): void {
    const { registry, src } = this;
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
    this.storeGauges();
  }

  private storeGauges(): void {
    const { registry } = this;
    const read = () => (this.storeRead ??= this.readStore().finally(() => (this.storeRead = null)));
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

  private async readStore(): Promise<{ tasks: OpenTasks; holds: OpenHolds[]; waiting: WaitingQueue[] } | null> {
    try {
      const [tasks, holds, waiting] = await Promise.all([
        this.src.gauges.openTasks(),
        this.src.gauges.openHolds(),
        this.src.gauges.waitingTasks(),
      ]);
      return { tasks, holds, waiting };
    } catch (e) {
      this.src.logger.warn({ err: String(e) }, 'metrics: store gauges not read');
      return null;
    }
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    const merged = Registry.merge([processMetrics(), this.registry]);
    return { contentType: merged.contentType, text: await merged.metrics() };
  }
}
