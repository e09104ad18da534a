import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dashscopeAuthOk, klingAuth } from './auth.ts';
import { DEFAULT_SIM_KEYS, type RecordedRequest, type SimContext, type SimOptions } from './context.ts';
import { registerCompatChat } from './dashscope/compat-chat.ts';
import { registerCompatEmbeddings } from './dashscope/compat-embeddings.ts';
import { registerCompatModels } from './dashscope/compat-models.ts';
import { registerMultimodal } from './dashscope/multimodal.ts';
import { registerResponses } from './dashscope/responses.ts';
import { registerAnthropic } from './dashscope/anthropic.ts';
import { applyFault, providerOf, type Provider } from './fault-answers.ts';
import { registerKling } from './kling/index.ts';
import { DEFAULT_KLING_TASK_SLOTS } from './kling/slots.ts';
import { registerImages } from './dashscope/images.ts';
import { registerImagesAsync } from './dashscope/images-async.ts';
import { registerDashscopeTaskList } from './dashscope/task-list.ts';
import { registerDashscopeTasks } from './dashscope/tasks.ts';
import { registerVideoSynthesis } from './dashscope/video-synthesis.ts';
import { registerResultVideos } from './dashscope/results-video.ts';
import { registerQuotas } from './dashscope/quotas.ts';
import { DEFAULT_KLING_RPM, DEFAULT_SYNC_RPM, DEFAULT_SYNC_TPM, refuseOverRate, setRateLimits } from './rate-limits.ts';
import { compatError, nativeError } from './dashscope/errors.ts';
import { FaultController, type FaultSpec } from './faults.ts';
import { requestId, sendJson, sleep } from './http-util.ts';
import { SimRouter, type SimRequest } from './router.ts';

export interface Simulator {
  url: string;
  port: number;
  ctx: SimContext;
  faults: FaultController;
  recorded: RecordedRequest[];
  /** Requests whose path contains `fragment`, oldest first. */
  requestsTo(fragment: string): RecordedRequest[];
  close(): Promise<void>;
}

/** Area modules register their routes here; each later capability adds one line. */
const AREAS: Array<(router: SimRouter, ctx: SimContext) => void> = [
  registerCompatChat,
  registerCompatEmbeddings,
  registerCompatModels,
  registerMultimodal,
  registerResponses,
  registerAnthropic,
  registerKling,
  registerImages,
  registerImagesAsync,
  registerDashscopeTasks,
  registerDashscopeTaskList,
  registerVideoSynthesis,
  registerResultVideos,
  registerQuotas,
];

const MAX_BODY = 64 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function checkAuth(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: SimContext,
): Promise<boolean> {
  if (provider === 'public') return true;
  if (provider === 'kling') {
    const r = await klingAuth(req, ctx.opts.klingAccessKey, ctx.opts.klingSecretKey);
    if (r.ok) return true;
    sendJson(res, 401, { code: r.code, message: r.message, request_id: requestId() });
    return false;
  }
  if (
    dashscopeAuthOk(req, [ctx.opts.dashscopeApiKey, ...Object.keys(ctx.opts.dashscopeKeys)], provider === 'anthropic')
  )
    return true;
  if (provider === 'dashscope-compat') compatError(res, 401, 'invalid_api_key', 'Incorrect API key provided. ');
  else if (provider === 'anthropic')
    sendJson(res, 401, {
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
      request_id: requestId(),
    });
  else nativeError(res, 401, 'InvalidApiKey', 'Invalid API-key provided.');
  return false;
}

function handleControl(sreq: SimRequest, res: ServerResponse, ctx: SimContext): void {
  if (sreq.path === '/__sim/faults' && sreq.method === 'POST') {
    ctx.faults.add(sreq.json as FaultSpec);
    return sendJson(res, 200, { ok: true });
  }
  if (sreq.path === '/__sim/faults' && sreq.method === 'DELETE') {
    ctx.faults.clear();
    return sendJson(res, 200, { ok: true });
  }
  if (sreq.path === '/__sim/kling/task-slots' && sreq.method === 'POST') {
    const slots = (sreq.json as { slots?: unknown } | undefined)?.slots;
    if (typeof slots !== 'number' || !Number.isInteger(slots) || slots < 0)
      return sendJson(res, 400, { error: 'slots must be an integer >= 0 (0 = no limit)' });
    ctx.opts.klingTaskSlots = slots;
    return sendJson(res, 200, { ok: true, slots });
  }
  if (sreq.path === '/__sim/rate-limits' && sreq.method === 'POST') {
    const set = setRateLimits(ctx, sreq.json);
    return set === null ? sendJson(res, 200, { ok: true }) : sendJson(res, 400, { error: set });
  }
  if (sreq.path === '/__sim/requests' && sreq.method === 'GET') return sendJson(res, 200, { data: ctx.recorded });
  if (sreq.path === '/__sim/health') return sendJson(res, 200, { ok: true });
  sendJson(res, 404, { error: 'unknown control path' });
}

export async function startSimulator(opts: SimOptions = {}): Promise<Simulator> {
  const faults = new FaultController();
  const ctx: SimContext = {
    opts: {
      dashscopeApiKey: opts.dashscopeApiKey ?? DEFAULT_SIM_KEYS.dashscopeApiKey,
      klingAccessKey: opts.klingAccessKey ?? DEFAULT_SIM_KEYS.klingAccessKey,
      klingSecretKey: opts.klingSecretKey ?? DEFAULT_SIM_KEYS.klingSecretKey,
      taskDurationMs: opts.taskDurationMs ?? 5000,
      resultTtlMs: opts.resultTtlMs ?? 24 * 3600 * 1000,
      latencyMs: opts.latencyMs ?? 0,
      klingTaskSlots: opts.klingTaskSlots ?? DEFAULT_KLING_TASK_SLOTS,
      dashscopeQueryQps: opts.dashscopeQueryQps ?? 20,
      dashscopeKeys: opts.dashscopeKeys ?? {},
      dashscopeRpm: opts.dashscopeRpm ?? DEFAULT_SYNC_RPM,
      dashscopeTpm: opts.dashscopeTpm ?? DEFAULT_SYNC_TPM,
      dashscopeModelLimits: opts.dashscopeModelLimits ?? {},
      klingRpm: opts.klingRpm ?? DEFAULT_KLING_RPM,
      now: opts.now ?? Date.now,
    },
    faults,
    recorded: [],
    baseUrl: '',
    state: new Map(),
  };
  const router = new SimRouter();
  for (const register of AREAS) register(router, ctx);
  const sockets = new Set<import('node:net').Socket>();

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://sim');
      const raw = await readBody(req);
      let json: unknown;
      let text: string | undefined;
      const ct = String(req.headers['content-type'] ?? '');
      if (raw.length > 0 && (ct.includes('json') || ct === '')) {
        text = raw.toString('utf8');
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      const method = req.method ?? 'GET';
      const sreq: SimRequest = {
        method,
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        raw,
        json,
        params: {},
        req,
        fault: null,
      };
      if (url.pathname.startsWith('/__sim/')) return handleControl(sreq, res, ctx);
      if (ctx.recorded.length >= 5000) ctx.recorded.splice(0, 1000);
      const entry: RecordedRequest = {
        method,
        path: url.pathname + url.search,
        headers: { ...req.headers },
        body: json ?? (raw.length ? `<${raw.length} bytes>` : null),
        at: Date.now(),
      };
      if (text !== undefined) entry.text = text;
      ctx.recorded.push(entry);
      res.once('close', () => {
        const k = sreq.fault?.kind;
        if (!res.writableFinished && k !== 'cut' && k !== 'reset' && k !== 'lost-reply') entry.aborted = true;
      });
      const provider = providerOf(url.pathname);
      if (!(await checkAuth(provider, req, res, ctx))) return;
      if (ctx.opts.latencyMs > 0) await sleep(ctx.opts.latencyMs);
      const fault = faults.take(url.pathname, raw);
      sreq.fault = fault;
      if (fault && (await applyFault(fault, provider, res, req, ctx.baseUrl + url.pathname))) return;
      const m = router.match(method, url.pathname);
      if (!m) {
        if (provider === 'kling')
          return sendJson(res, 404, { code: 1203, message: 'resource not found', request_id: requestId() });
        if (provider === 'dashscope-compat') return compatError(res, 404, 'not_found', 'Not found.');
        return nativeError(res, 404, 'NotFound', 'Not found.');
      }
      sreq.params = m.params;
      if (refuseOverRate(ctx, sreq, res)) return;
      await m.handler(sreq, res);
    } catch (e) {
      if (!res.headersSent)
        sendJson(res, 500, {
          code: 'InternalError',
          message: `simulator error: ${String(e)}`,
          request_id: requestId(),
        });
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 65_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  ctx.baseUrl =
    opts.publicUrl?.replace(/\/+$/, '') ??
    `http://${opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1'}:${port}`;
  return {
    url: ctx.baseUrl,
    port,
    ctx,
    faults,
    recorded: ctx.recorded,
    requestsTo: (fragment) => ctx.recorded.filter((r) => r.path.includes(fragment)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
