// Upstream capacity per account x model (capacity/): admitted and refused calls and the queue waits counted as they
// happen; the queue depth, the calls in flight and the limits in force (stated, read or learnt) read at scrape time.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Capacity } from '../capacity/capacity.ts';
import type { Gate, GateEvents } from '../capacity/gate.ts';

const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30];

export class CapacityMetrics implements GateEvents {
  private capacity: Capacity | null = null;
  private readonly admittedTotal: Counter<'account' | 'model'>;
  private readonly refusedTotal: Counter<'account' | 'model' | 'reason'>;
  private readonly waits: Histogram<'account' | 'model'>;
  /** Calls admitted without a wait since the last scrape, per gate: counted at scrape time, not per call. */
  private readonly admittedSince = new Map<Gate, number>();

  constructor(registry: Registry) {
    const registers = [registry];
    const since = this.admittedSince;
    this.admittedTotal = new Counter({
      name: 'tollway_capacity_admitted_total',
      help: 'Calls admitted to an upstream account x model',
      labelNames: ['account', 'model'],
      registers,
      collect() {
        for (const [g, n] of since) this.inc({ account: g.upstreamAccount, model: g.model }, n);
        since.clear();
      },
    });
    this.refusedTotal = new Counter({
      name: 'tollway_capacity_refused_total',
      help: 'Calls that left the queue of an upstream account x model unserved: timeout (answered 429 upstream_capacity) or left (the client went away)',
      labelNames: ['account', 'model', 'reason'],
      registers,
    });
    this.waits = new Histogram({
      name: 'tollway_capacity_wait_seconds',
      help: 'Time admitted calls waited in the queue of an upstream account x model',
      labelNames: ['account', 'model'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    const gates = () => this.capacity?.all() ?? [];
    new Gauge({
      name: 'tollway_capacity_queue_depth',
      help: 'Calls waiting for an upstream account x model',
      labelNames: ['account', 'model'],
      registers,
      collect() {
        this.reset();
        for (const g of gates()) this.set({ account: g.upstreamAccount, model: g.model }, g.waiting);
      },
    });
    new Gauge({
      name: 'tollway_capacity_in_flight',
      help: 'Admitted calls in flight on an upstream account x model (this instance)',
      labelNames: ['account', 'model'],
      registers,
      collect() {
        this.reset();
        for (const g of gates()) this.set({ account: g.upstreamAccount, model: g.model }, g.inFlight);
      },
    });
    new Gauge({
      name: 'tollway_capacity_limit',
      help: 'The limit in force per upstream account x model and kind (rpm, tpm, concurrency), stated, read or learnt',
      labelNames: ['account', 'model', 'kind', 'source'],
      registers,
      collect() {
        this.reset();
        for (const g of gates()) {
          const s = g.sources();
          const e = g.effective();
          for (const kind of ['rpm', 'tpm', 'concurrency'] as const) {
            const v = e[kind];
            if (v !== null) this.set({ account: g.upstreamAccount, model: g.model, kind, source: s[kind] }, v);
          }
        }
      },
    });
  }

  watch(capacity: Capacity): void {
    this.capacity = capacity;
  }

  admitted(gate: Gate, waitedMs: number): void {
    if (waitedMs > 0) {
      this.admittedTotal.inc({ account: gate.upstreamAccount, model: gate.model });
      this.waits.observe({ account: gate.upstreamAccount, model: gate.model }, waitedMs / 1000);
    } else this.admittedSince.set(gate, (this.admittedSince.get(gate) ?? 0) + 1);
  }

  refused(gate: Gate, why: 'timeout' | 'left'): void {
    this.refusedTotal.inc({ account: gate.upstreamAccount, model: gate.model, reason: why });
  }
}
