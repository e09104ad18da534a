// DashScope as data (upstream-declaration.ts): the domestic region's host, its one API key, result hosts and the
// account's task-query rate.
import type { UpstreamDeclaration } from '../upstream-declaration.ts';

export const dashscopeDeclared: UpstreamDeclaration<'dashscope'> = {
  kind: 'dashscope',
  defaultBaseUrl: 'https://dashscope.aliyuncs.com',
  baseUrlEnv: 'DASHSCOPE_BASE_URL',
  // The contract describes a single domestic region; endpoints of other regions must never be mixed in.
  foreignHosts:
    /(^|\.)dashscope-intl\.aliyuncs\.com$|(^|\.)dashscope-us\.aliyuncs\.com$|\.ap-[a-z]+-\d\.maas\.aliyuncs\.com$|\.(us|eu|me|ap)-[a-z]+-\d+\.maas\.aliyuncs\.com$/i,
  keyFields: [{ key: 'apiKey', field: 'api_key', env: 'DASHSCOPE_API_KEY' }],
  accountKey: 'apiKey',
  resultHosts: [
    'dashscope-result-bj.oss-cn-beijing.aliyuncs.com',
    'dashscope-result-wlcb.oss-cn-wulanchabu.aliyuncs.com',
    'dashscope-result-wlcb-acdr-1.oss-cn-wulanchabu-acdr-1.aliyuncs.com',
    // Results served through OSS transfer acceleration (dashscope-<…>.oss-accelerate.aliyuncs.com).
    'dashscope-*.oss-accelerate.aliyuncs.com',
  ],
  // The account allows 20 task queries a second, shared by all its keys and by tools outside the gateway.
  queryRate: { env: 'TOLLWAY_DASHSCOPE_QUERY_QPS', qps: 15 },
};
