import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dashscope } from '../../src/adapters/dashscope/index.ts';
import { kling } from '../../src/adapters/kling/index.ts';
import { ConfigError, isDemoMode, loadConfig } from '../../src/config/config.ts';

const DEFAULT_DASHSCOPE_BASE_URL = dashscope.defaultBaseUrl;
const DEFAULT_KLING_BASE_URL = kling.defaultBaseUrl;

const bad = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
};

describe('config defaults', () => {
  it('works with an empty environment', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('0.0.0.0');
    expect(c.databaseUrl).toBe(`sqlite:${resolve('./data/tollway.db')}`);
    expect(c.dataDir).toBe(resolve('./data'));
    expect(c.upstreams.dashscope).toEqual({ keys: {}, baseUrl: DEFAULT_DASHSCOPE_BASE_URL });
    expect(c.upstreams.kling).toEqual({ keys: {}, baseUrl: DEFAULT_KLING_BASE_URL });
    expect(c.adminKey).toBeUndefined();
    expect(c.secret).toBeUndefined();
    expect(c.logLevel).toBe('info');
    expect(c.bodyLimit).toBe(20 * 1024 * 1024);
    expect(c.allowPrivateNetwork).toBe(false);
    expect(isDemoMode(c)).toBe(true);
  });

  it('the default upstreams are the single domestic (Beijing) region', () => {
    expect(DEFAULT_DASHSCOPE_BASE_URL).toBe('https://dashscope.aliyuncs.com');
    expect(DEFAULT_KLING_BASE_URL).toBe('https://api-beijing.klingai.com');
  });

  it('reads every documented variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://u:p@db.example:5432/tw',
      TOLLWAY_ADMIN_KEY: 'admin-key-0123456789',
      TOLLWAY_SECRET: 'secret-0123456789abc',
      DASHSCOPE_API_KEY: 'sk-abc',
      DASHSCOPE_BASE_URL: 'https://dashscope.aliyuncs.com/',
      KLING_ACCESS_KEY: 'ak',
      KLING_SECRET_KEY: 'sk',
      KLING_BASE_URL: 'https://api-beijing.klingai.com',
      LOG_LEVEL: 'warn',
      TOLLWAY_BODY_LIMIT: '2048',
      TOLLWAY_ALLOW_PRIVATE_NETWORK: 'true',
      TOLLWAY_RESULT_HOSTS: 'Cdn.Example.com, other.example',
      TOLLWAY_DATA_DIR: '/tmp/tw-data',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      databaseUrl: 'postgres://u:p@db.example:5432/tw',
      adminKey: 'admin-key-0123456789',
      logLevel: 'warn',
      bodyLimit: 2048,
      allowPrivateNetwork: true,
      dataDir: '/tmp/tw-data',
    });
    expect(c.upstreams.dashscope).toEqual({ keys: { apiKey: 'sk-abc' }, baseUrl: 'https://dashscope.aliyuncs.com' });
    expect(c.upstreams.kling.keys).toEqual({ accessKey: 'ak', secretKey: 'sk' });
    expect(c.resultHosts).toEqual(expect.arrayContaining(['cdn.example.com', 'other.example']));
    expect(isDemoMode(c)).toBe(false);
  });

  it('sqlite:<path> names another SQLite file', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).databaseUrl).toBe('sqlite:/tmp/x.db');
  });
});

describe('config rejects bad values with a clear message', () => {
  it('PORT', () => {
    expect(bad({ PORT: 'abc' })).toBe('PORT must be an integer, got "abc"');
    expect(bad({ PORT: '70000' })).toBe('PORT must be between 0 and 65535, got 70000');
    expect(bad({ PORT: '-1' })).toMatch(/^PORT must be an integer/);
  });

  it('DATABASE_URL', () => {
    expect(bad({ DATABASE_URL: 'mysql://u@h/db' })).toMatch(/^DATABASE_URL must start with sqlite: or postgres:\/\//);
    expect(bad({ DATABASE_URL: 'sqlite:' })).toMatch(/^DATABASE_URL sqlite: needs a file path/);
    expect(bad({ DATABASE_URL: 'postgres://' })).toMatch(/^DATABASE_URL is not a valid postgres:\/\/ URL/);
  });

  it('TOLLWAY_CORS_ORIGINS: off when empty, * for any origin, else exact origins; a path or another scheme is refused', () => {
    expect(loadConfig({}).cors).toBeNull();
    expect(loadConfig({ TOLLWAY_CORS_ORIGINS: ' * ' }).cors).toEqual({ origins: '*' });
    expect(loadConfig({ TOLLWAY_CORS_ORIGINS: 'https://App.example.com, http://localhost:5173/' }).cors).toEqual({
      origins: new Set(['https://app.example.com', 'http://localhost:5173']),
    });
    expect(bad({ TOLLWAY_CORS_ORIGINS: 'https://app.example.com/path' })).toMatch(
      /^TOLLWAY_CORS_ORIGINS: "https:\/\/app.example.com\/path" is not an origin/,
    );
    expect(bad({ TOLLWAY_CORS_ORIGINS: 'app.example.com' })).toMatch(/is not an origin/);
    expect(bad({ TOLLWAY_CORS_ORIGINS: 'ftp://app.example.com' })).toMatch(/is not an origin/);
  });

  it('DATABASE_URL messages never show the password', () => {
    const msg = bad({ DATABASE_URL: 'mysql://user:hunter2secret@h/db' });
    expect(msg).not.toContain('hunter2secret');
    expect(msg).toContain('***');
  });

  it('LOG_LEVEL', () => {
    expect(bad({ LOG_LEVEL: 'loud' })).toMatch(/^LOG_LEVEL must be one of .*got "loud"$/);
  });

  it('TOLLWAY_BODY_LIMIT and booleans', () => {
    expect(bad({ TOLLWAY_BODY_LIMIT: '10' })).toMatch(/^TOLLWAY_BODY_LIMIT must be between/);
    expect(bad({ TOLLWAY_ALLOW_PRIVATE_NETWORK: 'maybe' })).toMatch(
      /^TOLLWAY_ALLOW_PRIVATE_NETWORK must be true or false/,
    );
  });

  it('short admin key and secret', () => {
    expect(bad({ TOLLWAY_ADMIN_KEY: 'short' })).toBe('TOLLWAY_ADMIN_KEY must be at least 16 characters');
    expect(bad({ TOLLWAY_SECRET: 'short' })).toBe('TOLLWAY_SECRET must be at least 16 characters');
  });

  it('upstream URLs must be absolute http(s)', () => {
    expect(bad({ DASHSCOPE_BASE_URL: 'not a url' })).toMatch(/^DASHSCOPE_BASE_URL must be an absolute http\(s\) URL/);
    expect(bad({ KLING_BASE_URL: 'ftp://api-beijing.klingai.com' })).toMatch(/^KLING_BASE_URL must use http or https/);
  });

  it('refuses a foreign-region DashScope endpoint', () => {
    const msg = bad({ DASHSCOPE_BASE_URL: 'https://dashscope-intl.aliyuncs.com' });
    expect(msg).toMatch(
      /^DASHSCOPE_BASE_URL points at dashscope-intl\.aliyuncs\.com, an endpoint outside the single domestic region/,
    );
    expect(bad({ DASHSCOPE_BASE_URL: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1' })).toMatch(
      /outside the single domestic region/,
    );
  });

  it('refuses a foreign-region Kling endpoint', () => {
    expect(bad({ KLING_BASE_URL: 'https://api-singapore.klingai.com' })).toMatch(
      /^KLING_BASE_URL points at api-singapore\.klingai\.com, an endpoint outside the single domestic region/,
    );
  });

  it('Kling keys must come together', () => {
    expect(bad({ KLING_ACCESS_KEY: 'ak' })).toBe('KLING_ACCESS_KEY and KLING_SECRET_KEY must be set together');
    expect(bad({ KLING_SECRET_KEY: 'sk' })).toBe('KLING_ACCESS_KEY and KLING_SECRET_KEY must be set together');
  });

  it('a loopback simulator URL is accepted as an upstream base (tests, demo)', () => {
    expect(loadConfig({ DASHSCOPE_BASE_URL: 'http://127.0.0.1:9999' }).upstreams.dashscope.baseUrl).toBe(
      'http://127.0.0.1:9999',
    );
  });
});

describe('booleans', () => {
  it('TOLLWAY_TASK_POLLER defaults on, accepts 0/false/no, refuses nonsense', () => {
    expect(loadConfig({}).tasks.pollerEnabled).toBe(true);
    for (const v of ['0', 'false', 'no', 'FALSE'])
      expect(loadConfig({ TOLLWAY_TASK_POLLER: v }).tasks.pollerEnabled).toBe(false);
    expect(loadConfig({ TOLLWAY_TASK_POLLER: '1' }).tasks.pollerEnabled).toBe(true);
    expect(bad({ TOLLWAY_TASK_POLLER: 'off-ish' })).toMatch(/^TOLLWAY_TASK_POLLER must be true or false/);
  });
});
