// The adapter interface: what an upstream adapter offers, as optional capabilities.
// Adapters only translate (contract in → upstream wire → contract + Usage out); they never touch the store or HTTP
// layer.
import type { GatewayError } from '../errors/gateway-error.ts';
import type { JsonObject } from '../json/json.ts';
import type { TokenUsage } from '../vocabulary/usage.ts';
import type { CallSignal } from './abort-link.ts';

export type { TokenUsage };

/** Where and as whom to call: one channel's base URL and key (never leaves the process). */
export interface UpstreamTarget {
  baseUrl: string;
  apiKey: string;
}

export interface CallOptions {
  target: UpstreamTarget;
  /** Aborts the upstream request (client went away). */
  signal?: CallSignal;
  /** Extra headers to forward (already filtered by the route). */
  headers?: Record<string, string>;
}

/** A client request for a text capability: the client's JSON body plus the resolved names. */
export interface TextRequest {
  body: JsonObject;
  /** Name sent upstream (catalogue data; public stand-in names never go upstream). */
  upstreamModel: string;
  /** Name shown back to the client. */
  publicModel: string;
  /** Did the client ask for the usage chunk on a stream (`stream_options.include_usage`)? */
  clientWantsUsage?: boolean;
  /** The client's JSON text `body` was parsed from (unchanged since), if the adapter may send it on edited. */
  raw?: string | undefined;
}

/** A complete answer already in the client's wire shape (bytes to send as they are). */
export interface CompleteResult {
  body: string;
  /** Upstream-reported usage; null when the upstream reported none (the caller estimates). */
  usage: TokenUsage | null;
  upstreamRequestId: string | null;
}

/** A streaming answer: client-ready SSE frames plus what the upstream reported along the way. */
export interface StreamResult {
  upstreamRequestId: string | null;
  /** SSE frames for the client; throws a GatewayError if the upstream stream breaks. */
  frames: AsyncIterable<string>;
  /**
   * The same frames pushed to `sink` as each upstream read arrives (no promise per chunk), where the adapter
   * offers it. Use either this or `frames`, once.
   */
  pipe?(sink: FrameSink): FrameFlow;
  /** Usage reported so far (null until the upstream reports it). */
  usage(): TokenUsage | null;
  /** Output characters produced so far (basis of the estimate when no usage arrived). */
  producedChars(): number;
}

/** Takes a stream's client frames as they are made; `end` is called exactly once. */
export interface FrameSink {
  /**
   * Client frames as a byte string: one char per byte of their UTF-8 form (written as latin1). False: the client
   * is not taking more now — the source holds back until `resume()`.
   */
  write(frames: string): boolean;
  /** The end: no argument when the stream completed; else why it broke (a GatewayError, or the transport's error). */
  end(error?: unknown): void;
}

/** A piped stream's flow control. */
export interface FrameFlow {
  resume(): void;
}

/** How a family frames an error event inside its stream (the body is already rendered and redacted). */
export type ErrorFrame = (
  err: GatewayError,
  rendered: {
    message: string;
    type: string;
    code: string;
    request_id: string;
    param?: string;
    upstream_request_id?: string;
  },
) => string;

export interface TextCapability {
  complete(req: TextRequest, o: CallOptions): Promise<CompleteResult>;
  stream(req: TextRequest, o: CallOptions): Promise<StreamResult>;
}

export interface EmbeddingsCapability {
  embed(req: TextRequest, o: CallOptions): Promise<CompleteResult>;
}

/**
 * An upstream account's limits for one model, as the upstream states them: requests and tokens per minute (null when
 * it states none). Read by Upstream.readLimits.
 */
export interface UpstreamModelLimits {
  readonly rpm: number | null;
  readonly tpm: number | null;
}

/** One upstream's adapter: each capability is optional (image and video capabilities are added by their areas). */
export interface UpstreamAdapter {
  chat?: TextCapability;
  /** Chat with image parts on a model that needs the multimodal path. */
  visionChat?: TextCapability;
  responses?: TextCapability;
  messages?: TextCapability;
  embeddings?: EmbeddingsCapability;
}
