// Every door that takes a key (the console's sign-in and the admin API's bearer, the portal's sign-in) counts wrong
// keys per client address (IPv6 by its /64: address-bucket.ts) and refuses the address for a while after a few.
import { GatewayError } from '../errors/gateway-error.ts';
import { addressBucket } from '../limits/address-bucket.ts';
import type { AddressCount, RateLimiter } from '../limits/rate-limiter.ts';

export const MAX_SIGNIN_FAILURES = 5;
export const SIGNIN_WINDOW_MS = 60_000;

export interface LockoutDeps {
  readonly limiter: Pick<RateLimiter, 'countEvent' | 'events'>;
  /** Is the client address in a network TOLLWAY_TRUST_PROXY trusts? It is never refused for want of room to count it. */
  readonly trusted: (client: string) => boolean;
}

/** One door's lockout: its own count per address, and its refusal naming the keys it takes. */
export class SignInLockout {
  /**
   * @param door the count's name (`console`, `portal`): the shared counter's key, so it must not change between releases
   * @param keys what the door takes, for the refusal ("admin keys")
   */
  constructor(
    private readonly door: string,
    private readonly keys: string,
  ) {}

  private counter(client: string): string {
    return `${this.door}-signin:${addressBucket(client)}`;
  }

  tooMany(resetMs: number): GatewayError {
    const s = Math.max(1, Math.ceil(resetMs / 1000));
    return new GatewayError(
      'rate_limit_exceeded',
      `Too many wrong ${this.keys} from this address; try again in ${s} s`,
      {
        headers: { 'retry-after': String(s) },
      },
    );
  }

  /** 429 while the address has sent too many wrong keys lately; else what was read, for `wrong` to judge by. */
  async check(deps: Pick<LockoutDeps, 'limiter'>, client: string): Promise<AddressCount> {
    const seen = await deps.limiter.events(this.counter(client));
    if (seen.n >= MAX_SIGNIN_FAILURES) throw this.tooMany(seen.resetMs);
    return seen;
  }

  /**
   * A wrong key was presented: counted against the address (unless `count` is false: a key that guesses nothing).
   * When every tracked address is locked out and there is no room to count this one, it is refused as over the limit
   * instead — but a trusted network is judged as usual, so a flood of addresses cannot lock the operator out.
   */
  async wrong(deps: LockoutDeps, client: string, seen: AddressCount, count = true): Promise<void> {
    if (seen.full && !deps.trusted(client)) throw this.tooMany(seen.resetMs);
    if (count) await deps.limiter.countEvent(this.counter(client), SIGNIN_WINDOW_MS, MAX_SIGNIN_FAILURES);
  }
}
