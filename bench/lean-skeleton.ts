// An experiment, not a product path (`BENCH_SKELETON=1 npm run bench` adds it as a fourth target): the least a
// gateway can do for non-streaming chat — node:http in, JSON.parse the body, rename the model, one undici
// dispatch to the upstream collecting the whole answer, find the usage, write the answer back. No auth, no
// validation, no metering, no logging. Its CPU per request is the floor that every gateway feature adds to.
// With SKELETON_DURABLE=1 (`BENCH_SKELETON=durable`) it also does the work no gateway with this contract can skip,
// the way the gateway does it: the bearer token hashed and looked up, one ledger row and one request-log row per
// request through the same group commit and prepared statements into a SQLite file (checkpoints on a thread), and
// one access line to the asynchronous stdout sink. What the gateway costs beyond that is its own code.
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool, type Dispatcher } from 'undici';
import { DEFAULT_SIM_KEYS } from '../simulator/context.ts';
import { hashToken } from '../src/auth/token-secret.ts';
import { stdoutSink } from '../src/runtime/log-sink.ts';
import { GroupCommit } from '../src/store/group-commit.ts';
import type { LedgerTuple, LogTuple } from '../src/store/sqlite-row-writes.ts';
import { openStore } from '../src/store/store.ts';
import { answerStats } from './proc-stats.ts';

const TOKEN = 'tw-skeleton-token-0123456789abcdef';
const durable = process.env.SKELETON_DURABLE === '1' ? await openDurable() : null;

async function openDurable() {
  const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'tollway-skeleton-')), 'floor.db')}`, {
    checkpointThread: true,
  });
  await store.db
    .insertInto('tokens')
    .values({
      id: 'tok_1',
      name: 'skeleton',
      secret_hash: hashToken(TOKEN),
      prefix: TOKEN.slice(0, 8),
      created_at: Date.now(),
    })
    .execute();
  const writer = store.batchWriter!;
  const onError = (e: unknown) => console.error(e);
  return {
    tokens: new Map([[hashToken(TOKEN), 'tok_1']]),
    ledger: new GroupCommit<LedgerTuple>({
      intervalMs: 10,
      maxBatch: 500,
      write: async (rows) => void (await writer.ledger(rows)),
      onError,
    }),
    log: new GroupCommit<LogTuple>({
      intervalMs: 10,
      maxBatch: 500,
      write: (rows) => writer.requestLog(rows),
      onError,
    }),
    sink: stdoutSink(),
  };
}
let seq = 0;

const pool = new Pool(`http://127.0.0.1:${process.env.BENCH_TARGET_PORT}`, { connections: 256, pipelining: 1 });
const auth = `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}`;

const server = http.createServer((req, res) => {
  const started = Date.now();
  const id = `req_${started.toString(16).padStart(12, '0')}${(seq++).toString(16).padStart(20, '0')}`;
  const tokenId = durable ? durable.tokens.get(hashToken((req.headers.authorization ?? '').slice(7))) : 'none';
  if (tokenId === undefined) {
    res.writeHead(401).end();
    return;
  }
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
        if (durable && usageAt >= 0) {
          const u = JSON.parse(text.slice(text.indexOf('{', usageAt), text.indexOf('}', usageAt) + 1)) as {
            prompt_tokens: number;
            completion_tokens: number;
          };
          const q = { input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens };
          const amount = u.prompt_tokens * 2 + u.completion_tokens * 8;
          durable.ledger.push([
            id,
            tokenId,
            'qwx3.7-plus',
            'tokens',
            q,
            { input: 2, output: 8 },
            amount,
            id,
            null,
            null,
            started,
          ]);
          durable.log.push([
            id,
            tokenId,
            'qwx3.7-plus',
            '/v1/chat/completions',
            'POST',
            status,
            Date.now() - started,
            q,
            amount,
            null,
            null,
            started,
            null,
            null,
            null,
          ]);
          durable.sink.write(
            `{"level":30,"time":${Date.now()},"request_id":"${id}","method":"POST","path":"${req.url}","status":${status},"model":"qwx3.7-plus","ms":${Date.now() - started},"msg":"request"}\n`,
          );
        }
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'x-gateway-request-id': id,
          'x-usage-at': String(usageAt),
          'content-length': Buffer.byteLength(answer),
        });
        res.end(answer);
      },
      onResponseError: () => res.destroy(),
    };
    pool.dispatch(
      {
        method: 'POST',
        path: req.url ?? '/',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: upstream,
      },
      handler,
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  answerStats();
  process.send?.({ type: 'ready', port: (server.address() as { port: number }).port, token: TOKEN });
});
