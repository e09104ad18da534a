// A background job run in rounds: one round at a time, the next `tickMs` after the last one ended, or at once when
// kicked (a kick during a round runs another right after it). Stopping waits for the round under way.
export class RoundLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = true;
  private kicked = false;

  constructor(
    private readonly round: () => Promise<unknown>,
    private readonly tickMs: number,
    private readonly onError: (e: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) await this.running;
  }

  /** Something is due: run a round soon instead of waiting for the next tick. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.kicked = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.round()
        .catch(this.onError)
        .finally(() => {
          this.running = null;
          const again = this.kicked;
          this.kicked = false;
          if (!this.stopped) this.schedule(again ? 0 : this.tickMs);
        });
    }, ms);
    this.timer.unref?.();
  }
}
