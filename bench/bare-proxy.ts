// The practical ceiling: node:http in, keep-alive node:http out, bytes piped, no parsing.
import http from 'node:http';
import { answerStats } from './proc-stats.ts';

const target = Number(process.env.BENCH_TARGET_PORT);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const server = http.createServer((req, res) => {
  const up = http.request(
    { host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers, agent },
    (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  req.pipe(up);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  answerStats();
  process.send?.({ type: 'ready', port: (server.address() as { port: number }).port });
});
