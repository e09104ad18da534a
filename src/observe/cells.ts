// Request-path series for prom-client: a label set is bound once to a cell (its bucket counts, sum and count), and
// an observation is a few additions on that cell. prom-client's own labelled children build a label object and a
// hash string on every observation; here the caller keeps the cell (metrics.ts caches them per route, model and
// status), so an observation allocates nothing. prom-client still owns the registry and the exposition format:
// these classes only answer its get() from the cells.
import { Counter, Histogram, type Registry } from 'prom-client';

type Labels = Record<string, string>;

/** One label set of a histogram. */
export class HistogramCell {
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/** One label set of a counter. */
export class CounterCell {
  value = 0;
  constructor(readonly labels: Labels) {}
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

interface Exposed {
  name: string;
  help: string;
  type: string;
  values: Sample[];
  aggregator: string;
}

/** A histogram whose label sets are cells (see the file comment). */
export class CellHistogram extends Histogram<string> {
  private readonly cells: HistogramCell[] = [];
  private readonly bounds: readonly number[];
  private readonly meta: { name: string; help: string };

  constructor(cfg: {
    name: string;
    help: string;
    labelNames: readonly string[];
    buckets: number[];
    registry: Registry;
  }) {
    super({
      name: cfg.name,
      help: cfg.help,
      labelNames: cfg.labelNames,
      buckets: cfg.buckets,
      registers: [cfg.registry],
    });
    this.bounds = [...cfg.buckets].sort((a, b) => a - b);
    this.meta = { name: cfg.name, help: cfg.help };
  }

  cell(labels: Labels): HistogramCell {
    const c = new HistogramCell(labels, this.bounds);
    this.cells.push(c);
    return c;
  }

  allCells(): readonly HistogramCell[] {
    return this.cells;
  }

  private exposed(): Exposed {
    const { name, help } = this.meta;
    const values: Sample[] = [];
    for (const c of this.cells) {
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += c.counts[i]!;
        values.push({ labels: { ...c.labels, le: this.bounds[i]! }, value: acc, metricName: `${name}_bucket` });
      }
      values.push({ labels: { ...c.labels, le: '+Inf' }, value: c.count, metricName: `${name}_bucket` });
      values.push({ labels: c.labels, value: c.sum, metricName: `${name}_sum` });
      values.push({ labels: c.labels, value: c.count, metricName: `${name}_count` });
    }
    return { name, help, type: 'histogram', values, aggregator: 'sum' };
  }

  // prom-client's registry reads a metric through these two.
  override async get(): ReturnType<Histogram<string>['get']> {
    return this.exposed() as unknown as Awaited<ReturnType<Histogram<string>['get']>>;
  }
  async getForPromString(): ReturnType<Histogram<string>['get']> {
    return this.get();
  }
}

/**
 * A counter whose label sets are cells. `source` adds series read from elsewhere at scrape time (a histogram
 * cell's count is the number of requests, kept once).
 */
export class CellCounter extends Counter<string> {
  private readonly cells: CounterCell[] = [];
  private readonly meta: { name: string; help: string };

  constructor(
    cfg: { name: string; help: string; labelNames: readonly string[]; registry: Registry },
    private readonly source: () => Iterable<{ labels: Labels; value: number }> = () => [],
  ) {
    super({ name: cfg.name, help: cfg.help, labelNames: cfg.labelNames, registers: [cfg.registry] });
    this.meta = { name: cfg.name, help: cfg.help };
  }

  cell(labels: Labels): CounterCell {
    const c = new CounterCell(labels);
    this.cells.push(c);
    return c;
  }

  override async get(): ReturnType<Counter<string>['get']> {
    const values: Sample[] = this.cells.map((c) => ({ labels: c.labels, value: c.value }));
    for (const s of this.source()) values.push({ labels: s.labels, value: s.value });
    return {
      name: this.meta.name,
      help: this.meta.help,
      type: 'counter',
      values,
      aggregator: 'sum',
    } as unknown as Awaited<ReturnType<Counter<string>['get']>>;
  }
  async getForPromString(): ReturnType<Counter<string>['get']> {
    return this.get();
  }
}
