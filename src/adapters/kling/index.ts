// Kling (the Beijing region): video tasks on three endpoints, signed with a JWT from an access key and a secret key.
import type { Upstream } from '../upstream.ts';
import { klingDeclared } from './declaration.ts';
import { PROBE_TIMEOUT_MS } from '../probe.ts';
import { KlingTaskDriver } from './task-driver.ts';
import { ALL_STORED_KINDS } from './task-kinds.ts';

export const kling: Upstream<'kling'> = {
  ...klingDeclared,
  // One item of the text-to-video task list: authenticated, nothing generated or billed.
  async probe(clients, ch) {
    const r = await clients.kling.call(ch, 'GET', '/v1/videos/text2video?pageNum=1&pageSize=1', undefined, {
      timeoutMs: PROBE_TIMEOUT_MS,
    });
    return { upstreamRequestId: r.upstreamRequestId };
  },
  taskKinds: ALL_STORED_KINDS.map((s) => s.kind),
  // One driver per stored kind: a path's tasks created on another upstream endpoint (o1 text2video) are asked there.
  drivers: (clients, wiring) => {
    const klingChannels = () => wiring.channels().filter((c) => c.kind === 'kling');
    return ALL_STORED_KINDS.map((s) => [
      s.kind,
      new KlingTaskDriver(clients.kling, s.endpoint, klingChannels, wiring.submitVia),
    ]);
  },
};
