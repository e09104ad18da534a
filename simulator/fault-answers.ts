// How each upstream API answers a fault the simulator injects before its handler runs (faults.ts): the request's
// provider by its path, and the status, content-filter, entitlement, empty and transport faults in its own words.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { compatError, nativeError, statusFaultBody } from './dashscope/errors.ts';
import { leakMessage, type FaultSpec } from './faults.ts';
import { requestId, sendJson, sleep } from './http-util.ts';

export type Provider = 'dashscope-compat' | 'dashscope-native' | 'anthropic' | 'kling' | 'public';

export function providerOf(path: string): Provider {
  if (path.startsWith('/compatible-mode/') || path.startsWith('/api/v2/apps/protocols/compatible-mode/'))
    return 'dashscope-compat';
  if (path.startsWith('/apps/anthropic/')) return 'anthropic';
  if (path.startsWith('/api/')) return 'dashscope-native';
  if (path.startsWith('/v1/')) return 'kling';
  return 'public';
}

function upstreamErrorFor(provider: Provider, res: ServerResponse, status: number, message?: string): void {
  const b = { ...statusFaultBody(status), ...(message === undefined ? {} : { message }) };
  if (provider === 'dashscope-compat') return compatError(res, status, b.compatCode, b.message, b.type);
  if (provider === 'anthropic') {
    const type =
      status === 401
        ? 'authentication_error'
        : status === 403
          ? 'permission_error'
          : status === 429
            ? 'rate_limit_error'
            : status >= 500
              ? 'api_error'
              : 'invalid_request_error';
    return sendJson(res, status, { type: 'error', error: { type, message: b.message }, request_id: requestId() });
  }
  if (provider === 'kling') {
    const code = status === 401 ? 1002 : status === 403 ? 1103 : status === 429 ? 1302 : status === 400 ? 1201 : 5000;
    return sendJson(res, status, { code, message: b.message, request_id: requestId() });
  }
  return nativeError(res, status, b.code, b.message);
}

const FILTERED = 'Input data may contain inappropriate content.';

/** A content-filter refusal as each API spells it (see upstream-protocols.md §1 and §7 of the Kling part). */
function contentFilterFor(provider: Provider, res: ServerResponse, arg: number | undefined): void {
  if (provider === 'dashscope-compat')
    return compatError(res, 400, 'data_inspection_failed', FILTERED, 'data_inspection_failed');
  // The messages-compatible path: a generic type, the DashScope code inside the message.
  if (provider === 'anthropic')
    return sendJson(res, 400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: `<400> InternalError.Algo.DataInspectionFailed: ${FILTERED}` },
      request_id: requestId(),
    });
  if (provider === 'kling')
    return sendJson(res, 400, {
      code: arg === 1300 ? 1300 : 1301,
      message: arg === 1300 ? 'Request blocked by content policy.' : 'Content security check failed.',
      request_id: requestId(),
    });
  return nativeError(res, 400, 'DataInspectionFailed', FILTERED);
}

/** A success-shaped answer with no result and no usage, as each API spells it. */
function emptyAnswer(provider: Provider, url: string): Record<string, unknown> {
  if (provider === 'anthropic') return { id: `msg_${requestId()}`, type: 'message', role: 'assistant', content: [] };
  if (url.includes('/embeddings')) return { object: 'list', data: [] };
  if (url.includes('/responses'))
    return { id: `resp_${requestId()}`, object: 'response', status: 'completed', output: [] };
  if (provider === 'dashscope-compat') return { id: `chatcmpl-${requestId()}`, object: 'chat.completion', choices: [] };
  return { output: {}, request_id: requestId() };
}

/** Applies the pre-handler faults; returns true when the fault has answered (or dropped) the request. */
export async function applyFault(
  f: FaultSpec,
  provider: Provider,
  res: ServerResponse,
  req: IncomingMessage,
  url: string,
): Promise<boolean> {
  switch (f.kind) {
    case 'leak':
      upstreamErrorFor(
        provider,
        res,
        f.arg ?? 400,
        leakMessage(req.headers.authorization ?? (req.headers['x-api-key'] as string | undefined), url),
      );
      return true;
    case 'status':
      upstreamErrorFor(provider, res, f.arg ?? 500);
      return true;
    case 'content-filter':
      contentFilterFor(provider, res, f.arg);
      return true;
    case 'not-entitled':
      if (provider === 'kling')
        sendJson(res, 403, {
          code: 1103,
          message: 'No access to this model for the account.',
          request_id: requestId(),
        });
      else if (provider === 'dashscope-compat') compatError(res, 403, 'Model.AccessDenied', 'Model access denied.');
      else if (provider === 'anthropic') upstreamErrorFor(provider, res, 403, 'Model access denied.');
      else nativeError(res, 403, 'Model.AccessDenied', 'Model access denied.');
      return true;
    case 'delay':
      await sleep(f.arg ?? 1000);
      return false;
    case 'reset':
      res.socket?.destroy();
      return true;
    case 'lost-reply': {
      // The handler runs (side effects happen); its answer never leaves: the client sees a reset.
      const drop = () => {
        res.socket?.destroy();
        return res;
      };
      res.writeHead = (() => res) as typeof res.writeHead;
      res.write = (() => true) as typeof res.write;
      res.end = drop as typeof res.end;
      return false;
    }
    case 'late-reply': {
      // The handler runs now (side effects happen); its answer is held back — a client gone by then never gets it.
      const queued: Array<() => void> = [];
      const { writeHead, write, end } = res;
      const hold = <F extends (...a: never[]) => unknown>(fn: F, ret: unknown) =>
        ((...a: Parameters<F>) => {
          queued.push(() => fn.apply(res, a));
          return ret;
        }) as unknown as F;
      res.writeHead = hold(writeHead, res);
      res.write = hold(write, true);
      res.end = ((...a: Parameters<typeof end>) => {
        queued.push(() => end.apply(res, a));
        setTimeout(() => {
          if (!res.destroyed && !res.socket?.destroyed) for (const send of queued) send();
        }, f.arg ?? 1000).unref();
        return res;
      }) as typeof res.end;
      return false;
    }
    case 'timeout':
      return true; // never answer; the socket stays open until the client gives up or the server closes
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"output": {"choices": [ this is not json');
      return true;
    case 'empty':
      sendJson(res, 200, emptyAnswer(provider, url));
      return true;
    default:
      return false; // stream/task/image faults are read by the handlers
  }
}
