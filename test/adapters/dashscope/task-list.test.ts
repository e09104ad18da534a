// The DashScope task list page, read from a hostile upstream (a small fake server): a page with more tasks than the
// page size asked for is cut to it, and a total_page that is not a whole positive number is not taken as it is.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_PAGE_SIZE, listTaskPage } from '../../../src/adapters/dashscope/task-list.ts';
import { UpstreamClient } from '../../../src/adapters/http-client.ts';

let srv: Server;
let base: string;
let answer: unknown;

beforeAll(async () => {
  srv = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
  );
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise((r) => srv.close(r)));

const page = () => listTaskPage(new UpstreamClient(), { baseUrl: base, apiKey: 'k' }, 0, 1, { timeoutMs: 5000 });

describe('a hostile task list page', () => {
  it('150,000 made-up ids: only the page size asked for is kept', async () => {
    answer = {
      data: Array.from({ length: 150_000 }, (_, i) => ({ task_id: `made_${i}`, status: 'SUCCEEDED' })),
      total_page: 1,
    };
    const p = await page();
    expect(p.tasks).toHaveLength(LIST_PAGE_SIZE);
    expect(p.tasks[0]).toEqual({ upstreamTaskId: 'made_0', status: 'SUCCEEDED' });
  });

  it('a total_page that is not a whole positive number', async () => {
    for (const [total, read] of [
      [0, 1],
      [-5, 1],
      [2.5, 2],
      [1e9, 1e9],
      ['7', 1],
    ] as const) {
      answer = { data: [], total_page: total };
      expect((await page()).totalPages).toBe(read);
    }
  });
});
