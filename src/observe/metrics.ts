// The gateway's Prometheus metrics (GET /metrics, docs/operations.md#metrics). Two kinds:
// - counted on the way: requests by route, model and status, and upstream attempts by channel. Their label sets
//   are bound once to cells (cells.ts) and cached here in nested maps, so a request costs a few map reads and
//   additions, no label object and no string;
// - read at scrape time (prom-client collect callbacks): circuit breakers, the write-behind queues, and the store's
//   open tasks, poll lag and open holds (scrape-gauges.ts). Nothing of these is computed on the request path.
import { collectDefaultMetrics, Registry } from 'prom-client';
import { isGatewayError } from '../errors/gateway-error.ts';
import type { AttemptObserver } from '../routing/failover.ts';
import { CellCounter, CellHistogram, type CounterCell, type HistogramCell } from './cells.ts';
import { scrapeTimeGauges, type MetricsSources } from './scrape-gauges.ts';

export type { MetricsSources };

// Seconds. Text calls answer in milliseconds; streams, image and video creation take up to minutes.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
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

  constructor(src: MetricsSources) {
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
    scrapeTimeGauges(registry, src);
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

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    const merged = Registry.merge([processMetrics(), this.registry]);
    return { contentType: merged.contentType, text: await merged.metrics() };
  }
}
