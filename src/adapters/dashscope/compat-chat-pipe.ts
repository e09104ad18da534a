// The chat stream driven straight from the upstream's reads (push): no promise per chunk.
import type { BodyConsumer, BodyFlow, UpstreamStreamResponse } from '../http-stream.ts';
import type { FrameFlow, FrameSink } from '../types.ts';
import { streamBroke } from './compat-chat-common.ts';
import type { ChatStreamCore } from './compat-chat-stream.ts';

/**
 * The upstream body pushed through the core to `sink`, read by read: frames are written as each read completes
 * them, the upstream is paused while the sink is full, and the end (or the break, as a gateway error) reported once.
 */
export function pipeChatStream(
  res: Pick<UpstreamStreamResponse, 'push'>,
  core: ChatStreamCore,
  sink: FrameSink,
): FrameFlow {
  return new ChatPipe(core, sink).start(res);
}

/** The body consumer of pipeChatStream: one object per stream. */
class ChatPipe implements BodyConsumer {
  private flow: BodyFlow | null = null;
  private failed = false;
  /** A failure while the queued chunks are handed over (inside push) stops the upstream once push has returned. */
  private stopLater = false;

  constructor(
    private readonly core: ChatStreamCore,
    private readonly sink: FrameSink,
  ) {}

  start(res: Pick<UpstreamStreamResponse, 'push'>): BodyFlow {
    const flow = res.push(this);
    this.flow = flow;
    if (this.stopLater) flow.abort();
    return flow;
  }

  data(chunk: Buffer): boolean {
    if (this.failed) return true;
    try {
      this.core.push(chunk);
    } catch (e) {
      // An error event ends the stream: nothing after it is read.
      this.fail(e);
      this.stop();
      return true;
    }
    const t = this.core.take();
    return t === '' || this.sink.write(t);
  }

  end(): void {
    if (this.failed) return;
    try {
      this.core.end();
    } catch (e) {
      return this.fail(e);
    }
    const t = this.core.take();
    if (t) this.sink.write(t);
    this.sink.end();
  }

  error(e: unknown): void {
    if (!this.failed) this.fail(e);
  }

  private fail(e: unknown): void {
    this.failed = true;
    const t = this.core.take();
    if (t) this.sink.write(t);
    this.sink.end(streamBroke(e));
  }

  private stop(): void {
    if (this.flow) this.flow.abort();
    else this.stopLater = true;
  }
}
