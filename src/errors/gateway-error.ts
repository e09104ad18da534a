import { upstreamId } from './echo.ts';
import { codeSpec, type ErrorCode } from './codes.ts';

export interface GatewayErrorOptions {
  status?: number;
  upstreamRequestId?: string;
  /** Field the error is about, when there is one (shown as `param` in family B). */
  param?: string;
  cause?: unknown;
  /** Extra headers for the response (Retry-After …). */
  headers?: Record<string, string>;
  /** The upstream account is not entitled to the model it was asked for (not activated / not purchased). */
  notEntitled?: boolean;
  /**
   * The upstream account cannot take any call now (in arrears, its resource pack used up, its key refused): it
   * refused before doing anything, so another account may be asked, and the channel's breaker counts it.
   */
  accountRefused?: boolean;
  /**
   * The request reached the upstream and no answer says it was declined (a timeout or a cut connection after it
   * was sent): the upstream may be doing the work, so the call is not sent again (routing/failover.ts).
   */
  mayHaveRun?: boolean;
  /** The caller stopped the call (its client left): not the upstream's or the channel's failure. */
  callerAborted?: boolean;
  /**
   * The upstream's own words (its status, code and message) for operators: written to the request's log line and its
   * request-log row, never rendered to a client (upstream-words.ts).
   */
  upstreamMessage?: string;
  /**
   * Which upstream limit refused the call (an upstream 429): its requests per minute, its tokens per minute, or its
   * per-second burst protection. Each moves only its own admission (src/capacity).
   */
  upstreamLimit?: UpstreamLimitKind;
  /** The upstream's Retry-After (ms), when its refusal carried one. */
  retryAfterMs?: number;
}

/** The upstream limit a 429 names: requests per minute, tokens per minute, or the per-second burst protection. */
export type UpstreamLimitKind = 'requests' | 'tokens' | 'burst';

/** The one error type every layer throws; renderers turn it into the family's shape. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly upstreamRequestId: string | undefined;
  readonly param: string | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly notEntitled: boolean;
  readonly accountRefused: boolean;
  readonly mayHaveRun: boolean;
  readonly callerAborted: boolean;
  readonly upstreamMessage: string | undefined;
  readonly upstreamLimit: UpstreamLimitKind | null;
  readonly retryAfterMs: number | null;

  constructor(code: ErrorCode, message: string, opts: GatewayErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    const spec = codeSpec(code);
    this.name = 'GatewayError';
    this.code = code;
    this.status = opts.status ?? spec.status;
    this.type = spec.type;
    this.upstreamRequestId = upstreamId(opts.upstreamRequestId);
    this.param = opts.param;
    this.headers = opts.headers;
    this.notEntitled = opts.notEntitled === true;
    this.accountRefused = opts.accountRefused === true;
    this.mayHaveRun = opts.mayHaveRun === true;
    this.callerAborted = opts.callerAborted === true;
    this.upstreamMessage = opts.upstreamMessage;
    this.upstreamLimit = opts.upstreamLimit ?? null;
    this.retryAfterMs = opts.retryAfterMs ?? null;
  }

  get vendorCode(): number {
    return codeSpec(this.code).vendorCode;
  }
}

/** The same error with the upstream request id an answer's header gave (every other field kept). */
export function withUpstreamRequestId(e: GatewayError, upstreamRequestId: string): GatewayError {
  return new GatewayError(e.code, e.message, {
    status: e.status,
    upstreamRequestId,
    ...(e.param !== undefined ? { param: e.param } : {}),
    ...(e.headers ? { headers: e.headers } : {}),
    ...(e.cause !== undefined ? { cause: e.cause } : {}),
    notEntitled: e.notEntitled,
    accountRefused: e.accountRefused,
    mayHaveRun: e.mayHaveRun,
    callerAborted: e.callerAborted,
    ...(e.upstreamMessage !== undefined ? { upstreamMessage: e.upstreamMessage } : {}),
    ...(e.upstreamLimit !== null ? { upstreamLimit: e.upstreamLimit } : {}),
    ...(e.retryAfterMs !== null ? { retryAfterMs: e.retryAfterMs } : {}),
  });
}

export function isGatewayError(e: unknown): e is GatewayError {
  return e instanceof GatewayError;
}

export const badRequest = (message: string, param?: string, code: ErrorCode = 'invalid_parameter') =>
  new GatewayError(code, message, param === undefined ? {} : { param });
