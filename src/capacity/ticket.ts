// What admission to a gate (gate.ts) hands a call: its ticket, settled once when the call ended, and why it waited.

/** Why a call waited: the upstream's pause after a refusal, the calls in flight, or the request or token rate. */
export type WaitReason = 'paused' | 'concurrency' | 'rate' | 'queue';

/** The gate a ticket goes back to (gate.ts's Gate). */
export interface TicketGate {
  released(tokens: number, used: number | undefined): void;
}

/** An admitted call's hold: settled once, when its answer or stream ended (frees its slot, corrects its tokens). */
export class Ticket {
  private open = true;
  constructor(
    private readonly gate: TicketGate,
    readonly tokens: number,
    readonly waitedMs: number,
    readonly reason: WaitReason | null,
  ) {}

  /** `usedTokens`: the tokens the call reported (undefined: unknown, the estimate stands). */
  settle(usedTokens: number | undefined): void {
    if (!this.open) return;
    this.open = false;
    this.gate.released(this.tokens, usedTokens);
  }
}
