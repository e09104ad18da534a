// Kling as data (upstream-declaration.ts): the Beijing region's host, its access and secret keys, result hosts.
import type { UpstreamDeclaration } from '../upstream-declaration.ts';

export const klingDeclared: UpstreamDeclaration<'kling'> = {
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
};
