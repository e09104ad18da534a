// The access line (one per request) written as a pre-shaped JSON string straight to the logger's stream.
// Same line pino would write for `req.log.info({...}, 'request')` ({"level":30,"time":…,"request_id":…,
// fields…,"msg":"request"}), without pino's generic object walk per request — that walk and the redaction
// hook were the largest logging cost in the bench profile. Secrets are still scrubbed (redactSecrets runs on
// the finished line, exactly as the logger's streamWrite hook does), and a logger whose stream needs pino's
// metadata (multistream, transports) or has info disabled gets the ordinary call.
import pino, { type Logger } from 'pino';
import { redactSecrets } from '../errors/redact.ts';

export interface AccessLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  tokenId: string | undefined;
  model: string | null;
  errorCode: string | null;
  upstreamRequestId: string | null;
}

const str = JSON.stringify;

export function accessLogger(logger: Logger): (a: AccessLine) => void {
  const stream = (logger as unknown as Record<symbol, { write(s: string): unknown } | undefined>)[pino.symbols.streamSym];
  const needsMetadata = (stream as Record<symbol, unknown> | undefined)?.[pino.symbols.needsMetadataGsym] === true;
  const sym = logger as unknown as Record<symbol, unknown>;
  // Only when the logger writes pino's default shape (numeric level 30, epoch `time`, `msg`).
  const defaultShape = logger.levels.values.info === 30 && sym[pino.symbols.timeSym] === pino.stdTimeFunctions.epochTime && sym[pino.symbols.messageKeySym] === 'msg';
  const direct = stream && !needsMetadata && defaultShape;
  return (a) => {
    if (!logger.isLevelEnabled('info')) return;
    if (!direct) {
      logger.info(
        { request_id: a.requestId, method: a.method, path: a.path, status: a.status, latency_ms: a.latencyMs, token_id: a.tokenId, model: a.model, error_code: a.errorCode ?? undefined, upstream_request_id: a.upstreamRequestId ?? undefined },
        'request',
      );
      return;
    }
    let s = `{"level":30,"time":${Date.now()},"request_id":${str(a.requestId)},"method":${str(a.method)},"path":${str(a.path)},"status":${a.status},"latency_ms":${a.latencyMs}`;
    if (a.tokenId !== undefined) s += `,"token_id":${str(a.tokenId)}`;
    s += `,"model":${str(a.model)}`;
    if (a.errorCode !== null) s += `,"error_code":${str(a.errorCode)}`;
    if (a.upstreamRequestId !== null) s += `,"upstream_request_id":${str(a.upstreamRequestId)}`;
    stream.write(redactSecrets(`${s},"msg":"request"}\n`));
  };
}
