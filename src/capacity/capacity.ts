// The gates of every upstream account x upstream model that has a limit — stated on its channels, read from its
// upstream or learnt from its refusals — found from a channel and a catalogue entry. The upstream counts per account
// and the model it is sent, so public names sending one upstream model share its gate, and a limit stated for any of
// them applies to it (the smallest stated wins). A channel and model with none has no gate: `gateFor` answers null
// from a cached lookup, and `active()` is false while no gate exists anywhere.
import type { ModelEntry } from '../catalogue/types.ts';
import type { Channel } from '../routing/channel-registry.ts';
import { upstreamAccountOf } from '../routing/upstream-account.ts';
import { Gate, type GateDeps } from './gate.ts';
import { hasAny, NO_LIMITS, smaller, statedFor, type Limits, type RefusedLimit } from './limits.ts';

/** The channels limits are stated on: re-read when their version changes. */
export interface CapacityChannels {
  all(): readonly Channel[];
  readonly version: number;
}

/** What a gate is found by: the catalogue entry's id (the model limits are stated for) and its upstream model. */
export interface GateModel {
  readonly id: string;
  readonly upstreamModel: string;
}

/** The catalogue's entries (re-read when the catalogue object changes): which public names send an upstream model. */
export type CatalogueEntries = () => { entries(): ModelEntry[] };

/** Where an account x model's limits come from, kind by kind (the admin view). */
export interface LimitOrigins {
  stated: Limits;
  read: Limits;
}

/** Limits an upstream said it keeps, per upstream model (null: it did not say). */
export type ReadLimits = ReadonlyMap<string, { rpm: number | null; tpm: number | null }>;

export class Capacity {
  private readonly gates = new Map<string, Gate>();
  /** Per channel object and entry id: its gate, or null for none (channel objects change when their row does). */
  private perChannel = new WeakMap<Channel, Map<string, Gate | null>>();
  private readonly read = new Map<string, ReadLimits>();
  private readonly models = new Map<string, GateModel>();
  /** Per upstream model: the public names (entry ids) sending it, per channel kind; rebuilt for a new catalogue. */
  private names = new Map<string, string[]>();
  private namesOf: object | null = null;
  private seen = -1;
  private on = false;

  constructor(
    private readonly channels: CapacityChannels,
    private readonly deps: GateDeps,
    private readonly catalogue: CatalogueEntries,
    /** Learn from the upstream's 429s where nothing is stated or read (TOLLWAY_CAPACITY_LEARN). */
    private readonly learn = true,
  ) {}

  /** Does any account x model have a limit? While not, a call takes no other step here. */
  active(): boolean {
    if (this.stale()) this.refresh();
    return this.on;
  }

  gateFor(ch: Channel, model: GateModel): Gate | null {
    let m = this.perChannel.get(ch);
    if (m === undefined) {
      m = new Map();
      this.perChannel.set(ch, m);
    }
    let g = m.get(model.id);
    if (g === undefined) {
      g = this.find(ch, model, false);
      m.set(model.id, g);
    }
    return g;
  }

  /** The upstream refused a call on `ch` with a 429: the account x model pauses and learns (a gate from now on). */
  refused(ch: Channel, model: GateModel, kind: RefusedLimit, retryAfterMs: number | null): void {
    if (!this.learn) return;
    const g = this.find(ch, model, true)!;
    g.refused(kind, retryAfterMs);
    if (!this.on) {
      this.on = true;
      this.perChannel = new WeakMap();
    } else this.perChannel.get(ch)?.set(model.id, g);
  }

  /** The limits an upstream account's quota endpoint gave (replacing what it gave before). */
  setRead(upstreamAccount: string, limits: ReadLimits): void {
    this.read.set(upstreamAccount, limits);
    this.seen = -1;
  }

  /** Every gate (the admin view and the metrics). */
  all(): readonly Gate[] {
    if (this.stale()) this.refresh();
    return [...this.gates.values()];
  }

  /** What is stated on the account's channels and what its upstream said, for a gate's account x model. */
  origins(g: Gate): LimitOrigins {
    const m = this.models.get(g.key);
    const none = { ...NO_LIMITS };
    if (m === undefined) return { stated: none, read: none };
    const r = this.read.get(g.upstreamAccount)?.get(m.upstreamModel);
    return {
      stated: this.statedOf(g.upstreamAccount, m),
      read: r ? { rpm: r.rpm, tpm: r.tpm, concurrency: null } : none,
    };
  }

  private stale(): boolean {
    return this.channels.version !== this.seen || this.catalogue() !== this.namesOf;
  }

  private find(ch: Channel, model: GateModel, create: boolean): Gate | null {
    const upstreamAccount = upstreamAccountOf(ch);
    const key = `${upstreamAccount}|${model.upstreamModel}`;
    let g = this.gates.get(key);
    if (g !== undefined) return g;
    const limits = this.limitsOf(upstreamAccount, model);
    if (!create && !hasAny(limits)) return null;
    g = new Gate(key, upstreamAccount, model.upstreamModel, this.deps);
    g.setLimits(limits);
    this.gates.set(key, g);
    this.models.set(key, model);
    return g;
  }

  /** Stated (the smallest on any channel of the account) over read, per kind. */
  private limitsOf(upstreamAccount: string, model: GateModel): Limits {
    const l = this.statedOf(upstreamAccount, model);
    const r = this.read.get(upstreamAccount)?.get(model.upstreamModel);
    return r === undefined ? l : { rpm: l.rpm ?? r.rpm, tpm: l.tpm ?? r.tpm, concurrency: l.concurrency };
  }

  /**
   * The smallest limits stated for the upstream model on any channel of the account: for each public name sending
   * it that the channel serves, the channel's own entry for that name, else its "*".
   */
  private statedOf(upstreamAccount: string, model: GateModel): Limits {
    let l: Limits = { ...NO_LIMITS };
    for (const c of this.channels.all()) {
      if (c.modelLimits === null || upstreamAccountOf(c) !== upstreamAccount) continue;
      for (const name of this.publicNames(c.kind, model)) {
        if (c.models !== null && !c.models.includes(name)) continue;
        const s = statedFor(c.modelLimits, name);
        if (s !== undefined)
          l = {
            rpm: smaller(l.rpm, s.rpm),
            tpm: smaller(l.tpm, s.tpm),
            concurrency: smaller(l.concurrency, s.concurrency),
          };
      }
    }
    return l;
  }

  /** The public names sending `model`'s upstream model to channels of `kind` (the gate's own entry among them). */
  private publicNames(kind: Channel['kind'], model: GateModel): readonly string[] {
    this.indexNames();
    const list = this.names.get(`${kind}|${model.upstreamModel}`) ?? [];
    return list.includes(model.id) ? list : [...list, model.id];
  }

  private indexNames(): void {
    const cat = this.catalogue();
    if (cat === this.namesOf) return;
    this.namesOf = cat;
    this.names = new Map();
    for (const e of cat.entries()) {
      const k = `${e.upstream}|${e.upstreamModel}`;
      const list = this.names.get(k);
      if (list === undefined) this.names.set(k, [e.id]);
      else list.push(e.id);
    }
  }

  /**
   * The channels changed (or what was read): every gate's limits again; gates left with nothing stated or learnt go.
   */
  private refresh(): void {
    this.seen = this.channels.version;
    this.indexNames();
    this.perChannel = new WeakMap();
    for (const [key, g] of this.gates) {
      const l = this.limitsOf(g.upstreamAccount, this.models.get(key)!);
      g.setLimits(l);
      if (!hasAny(l) && !g.learnt.any && g.inFlight === 0 && g.waiting === 0) {
        this.gates.delete(key);
        this.models.delete(key);
      }
    }
    this.on = this.gates.size > 0 || this.channels.all().some((c) => c.modelLimits !== null) || this.readAny();
  }

  /** Did any upstream say a limit (a quota list of models without limits says none)? */
  private readAny(): boolean {
    for (const limits of this.read.values())
      for (const l of limits.values()) if (l.rpm !== null || l.tpm !== null) return true;
    return false;
  }
}
