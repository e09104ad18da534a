// An experiment, not a product path (`BENCH_SKELETON=1 npm run bench` adds it as a fourth target): the least a
// gateway can do for non-streaming chat — node:http in, JSON.parse the body, rename the model, one undici
// dispatch to the upstream collecting the whole answer, find the usage, write the answer back. No auth, no
// validation, no metering, no logging. Its CPU per request is the floor that every gateway feature adds to.
import http from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import { DEFAULT_SIM_KEYS } from '../simulator/context.ts';
import { answerStats } from './proc-stats.ts';

const pool = new Pool(`http://127.0.0.1:${process.env.BENCH_TARGET_PORT}`, { connections: 256, pipelining: 1 });
const auth = `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}`;

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const upstream = JSON.stringify({ ...body, model: String(body.model).replace(/^qwx/, 'qwen') });
    const out: Buffer[] = [];
    let status = 502;
    const handler: Dispatcher.DispatchHandler = {
      // (onRequestStart marks the new-style handler interface for undici.)
    onRequestStart: () => undefined,
    onResponseStart: (_c, s) => void (status = s),
      onResponseData: (_c, d) => void out.push(d),
      onResponseEnd: () => {
        const text = Buffer.concat(out).toString('utf8');
        const usageAt = text.indexOf('"usage"');
        const answer = text.replace(/"model":"qwen/, '"model":"qwx');
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-usage-at': String(usageAt), 'content-length': Buffer.byteLength(answer) });
        res.end(answer);
      },
      onResponseError: () => res.destroy(),
    };
    pool.dispatch({ method: 'POST', path: req.url ?? '/', headers: { 'content-type': 'application/json', authorization: auth }, body: upstream }, handler);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  answerStats();
  process.send?.({ type: 'ready', port: (server.address() as { port: number }).port, token: 'unused' });
});
