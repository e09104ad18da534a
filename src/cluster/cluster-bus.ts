// Keeps the per-instance caches of several gateway instances coherent. Each instance caches tokens,
// channels and the catalogue in memory; an admin change made through one instance is applied there at
// once and announced here, so the others apply it too: immediately through Redis pub/sub when REDIS_URL
// is set, and within the refresh interval otherwise (token cache TTL, periodic channel/catalogue reload).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * `token-changed`: a token was edited, topped up or rotated — forget what is cached under each of its secrets, and
 *   retire its allowances (`id`: the token's id).
 * `account-changed`: an account was edited, topped up or revoked — forget every cached token of it, and retire
 *   their allowances.
 */
export type ClusterEvent =
  | { kind: 'token-revoked'; hash: string }
  | { kind: 'token-changed'; hashes: string[]; id?: string }
  | { kind: 'account-changed'; id: string }
  | { kind: 'price-groups-changed' }
  | { kind: 'channels-changed' }
  | { kind: 'catalogue-changed' };

const isHash = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

export interface ClusterBus {
  /**
   * Tell the other instances (this instance applies its own change itself). Resolves once Redis has taken the
   * message: an admin answer sent after it reaches the client after the other instances were sent the change.
   * Never rejects (a bus error is logged; the periodic refresh still applies the change).
   */
  publish(e: ClusterEvent): Promise<void>;
  onEvent(handler: (e: ClusterEvent) => void): void;
  /** Ask Redis for an answer (readiness); null when there is no Redis. */
  ping(): Promise<void> | null;
  close(): Promise<void>;
}

/** A single instance (or no Redis): nothing to tell; the periodic refresh covers other instances. */
export class LocalBus implements ClusterBus {
  async publish(): Promise<void> {}
  onEvent(): void {}
  ping(): null {
    return null;
  }
  async close(): Promise<void> {}
}

const CHANNEL = 'tollway:cluster-events';

export function parseClusterEvent(text: string): { from: string; event: ClusterEvent } | null {
  try {
    const m = JSON.parse(text) as {
      from?: unknown;
      event?: { kind?: unknown; hash?: unknown; hashes?: unknown; id?: unknown };
    };
    if (typeof m.from !== 'string' || !m.event) return null;
    const k = m.event.kind;
    if (k === 'token-revoked' && isHash(m.event.hash)) return { from: m.from, event: { kind: k, hash: m.event.hash } };
    const hashes = m.event.hashes;
    if (k === 'token-changed' && Array.isArray(hashes) && hashes.length <= 2 && hashes.every(isHash)) {
      const id = m.event.id;
      if (id === undefined) return { from: m.from, event: { kind: k, hashes } };
      return typeof id === 'string' && /^tok_[A-Za-z0-9]{1,60}$/.test(id)
        ? { from: m.from, event: { kind: k, hashes, id } }
        : null;
    }
    if (k === 'account-changed' && typeof m.event.id === 'string' && /^acc_[A-Za-z0-9]{1,60}$/.test(m.event.id))
      return { from: m.from, event: { kind: k, id: m.event.id } };
    if (k === 'channels-changed' || k === 'catalogue-changed' || k === 'price-groups-changed')
      return { from: m.from, event: { kind: k } };
    return null;
  } catch {
    return null;
  }
}

export class RedisBus implements ClusterBus {
  private readonly id = randomUUID();
  private readonly handlers: Array<(e: ClusterEvent) => void> = [];
  private readonly ready: Promise<unknown>;

  constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly onError: (e: unknown) => void,
  ) {
    this.sub.on('message', (_channel: string, text: string) => {
      const m = parseClusterEvent(text);
      if (!m || m.from === this.id) return;
      for (const h of this.handlers) h(m.event);
    });
    this.ready = this.sub.subscribe(CHANNEL).catch(onError);
  }

  /** Resolves once this instance is subscribed (tests; start-up). */
  whenReady(): Promise<unknown> {
    return this.ready;
  }

  async publish(e: ClusterEvent): Promise<void> {
    await this.pub.publish(CHANNEL, JSON.stringify({ from: this.id, event: e })).catch(this.onError);
  }

  onEvent(handler: (e: ClusterEvent) => void): void {
    this.handlers.push(handler);
  }

  async ping(): Promise<void> {
    await this.pub.ping();
  }

  async close(): Promise<void> {
    this.sub.disconnect();
    this.pub.disconnect();
  }
}
