// Kling (the Beijing region): video tasks on three endpoints, signed with a JWT from an access key and a secret key.
import type { Upstream } from '../upstream.ts';
import { PROBE_TIMEOUT_MS } from '../probe.ts';
import { KlingTaskDriver } from './task-driver.ts';
import { ALL_STORED_KINDS } from './task-kinds.ts';

export const kling: Upstream<'kling'> = {
  kind: 'kling',
  defaultBaseUrl: 'https://api-beijing.klingai.com',
  baseUrlEnv: 'KLING_BASE_URL',
  foreignHosts: /^api-(singapore|sg|us|eu|global|intl)[a-z0-9-]*\.klingai\.com$|^api\.klingai\.com$/i,
  keyFields: [
    { key: 'accessKey', field: 'access_key', env: 'KLING_ACCESS_KEY' },
    { key: 'secretKey', field: 'secret_key', env: 'KLING_SECRET_KEY', setOnly: true },
  ],
  accountKey: 'accessKey',
  resultHosts: ['cdn.klingai.com', 'v1-kling.klingai.com', 'p1-kling.klingai.com'],
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
