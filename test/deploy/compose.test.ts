// deploy/compose.yaml, deploy/nginx.conf, the Dockerfile and .dockerignore, read as files (no container engine
// here): every gateway instance gets a configuration the gateway accepts, pointed at the PostgreSQL, Redis and
// simulator services of the file with matching credentials and ports, with no variable it does not read; the load
// balancer reaches both instances; the image is built as the Dockerfile's stages say from files the context keeps.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { UPSTREAMS } from '../../src/adapters/upstreams.ts';
import { isDemoMode, loadConfig } from '../../src/config/config.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DEPLOY = join(ROOT, 'deploy');
const read = (path: string) => readFileSync(path, 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string | number | boolean>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: Array<string | { type: string; target: string }>;
  ports?: string[];
}

/** What an operator must set (`${X:?message}`): the one variable given here. */
const REQUIRED: Record<string, string> = { TOLLWAY_ADMIN_KEY: 'an-operator-admin-key-0123456789' };

/**
 * Compose's variable substitution with only REQUIRED set: `${X:-default}` is the default, `${X:?message}` must be set.
 */
function interpolate(v: string): string {
  return v.replace(
    /\$\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?\}/g,
    (_m, name: string, op: string | undefined, arg: string | undefined) => {
      if (REQUIRED[name] !== undefined) return REQUIRED[name]!;
      if (op?.endsWith('?')) throw new Error(`compose would refuse to run without ${name}: ${arg}`);
      return arg ?? '';
    },
  );
}

const compose = parse(read(join(DEPLOY, 'compose.yaml')), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const envOf = (s: Service): Record<string, string> =>
  Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]));
const gateways = Object.entries(services).filter(([, s]) => s.command === undefined && s.image === 'tollway:local');
const simulatorArgs = services.simulator!.command!;
const arg = (flag: string) => simulatorArgs[simulatorArgs.indexOf(flag) + 1];

describe('deploy/compose.yaml', () => {
  it('has two gateway instances behind a load balancer, PostgreSQL, Redis, the simulator and a migration step', () => {
    expect(Object.keys(services).sort()).toEqual([
      'gateway1',
      'gateway2',
      'lb',
      'migrate',
      'postgres',
      'redis',
      'simulator',
    ]);
    expect(gateways.map(([n]) => n).sort()).toEqual(['gateway1', 'gateway2']);
    expect(services.simulator!.command![0]).toBe('simulate');
    expect(services.migrate!.command).toEqual(['migrate']);
  });

  it("every instance's environment is a configuration the gateway accepts, the same secret and admin key on each", () => {
    const configs = gateways.map(([, s]) => loadConfig(envOf(s)));
    for (const c of configs) {
      expect(isDemoMode(c)).toBe(false); // the simulator is a real upstream here, not the built-in one
      expect(c.host).toBe('0.0.0.0');
      expect(c.tasks.pollerEnabled).toBe(true);
    }
    const [one, two] = configs;
    expect(one!.secret).toBeDefined();
    expect(one!.adminKey).toBeDefined();
    expect([two!.secret, two!.adminKey, two!.databaseUrl, two!.redisUrl]).toEqual([
      one!.secret,
      one!.adminKey,
      one!.databaseUrl,
      one!.redisUrl,
    ]);
    expect(loadConfig(envOf(services.migrate!)).databaseUrl).toBe(one!.databaseUrl);
  });

  it('has no default admin key: compose refuses to run without one, and the gateway refuses a placeholder', () => {
    for (const [name, s] of gateways) {
      expect(String(s.environment!.TOLLWAY_ADMIN_KEY), name).toMatch(
        /^\$\{TOLLWAY_ADMIN_KEY:\?[^}]*TOLLWAY_ADMIN_KEY[^}]*\}$/,
      );
    }
    const env = { ...envOf(gateways[0]![1]), TOLLWAY_ADMIN_KEY: 'local-only-admin-key-change-me' };
    expect(() => loadConfig(env)).toThrow(/TOLLWAY_ADMIN_KEY is a placeholder.*openssl rand/);
  });

  it('sets no variable the gateway does not read (a misspelt name would be silently ignored)', () => {
    const dir = join(ROOT, 'src', 'config');
    const configSource = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => read(join(dir, f)))
      .join('\n');
    // Each upstream declares its own variables (adapters/<upstream>/index.ts), read by config.ts.
    const upstreamVars = new Set(UPSTREAMS.flatMap((u) => [u.baseUrlEnv, ...u.keyFields.map((f) => f.env)]));
    for (const [name, s] of [...gateways, ['migrate', services.migrate!] as const]) {
      for (const key of Object.keys(s.environment ?? {})) {
        expect(
          upstreamVars.has(key) || configSource.includes(`'${key}'`) || configSource.includes(`env.${key}`),
          `${name}: ${key}`,
        ).toBe(true);
      }
    }
  });

  it('points the instances at the PostgreSQL, Redis and simulator services with their credentials, ports and keys', () => {
    const pg = envOf(services.postgres!);
    const c = loadConfig(envOf(gateways[0]![1]));
    const db = new URL(c.databaseUrl);
    expect([
      db.hostname,
      db.port || '5432',
      decodeURIComponent(db.username),
      decodeURIComponent(db.password),
      db.pathname.slice(1),
    ]).toEqual(['postgres', '5432', pg.POSTGRES_USER, pg.POSTGRES_PASSWORD, pg.POSTGRES_DB]);
    expect(new URL(c.redisUrl!).hostname).toBe('redis');

    // Both upstream families at the simulator, on the port it listens on, with the keys it accepts.
    expect(arg('--host')).toBe('0.0.0.0');
    const simBase = `http://simulator:${arg('--port')}`;
    expect([c.upstreams.dashscope.baseUrl, c.upstreams.kling.baseUrl]).toEqual([simBase, simBase]);
    expect([
      c.upstreams.dashscope.keys.apiKey,
      c.upstreams.kling.keys.accessKey,
      c.upstreams.kling.keys.secretKey,
    ]).toEqual([DEFAULT_SIM_KEYS.dashscopeApiKey, DEFAULT_SIM_KEYS.klingAccessKey, DEFAULT_SIM_KEYS.klingSecretKey]);
    // Its result URLs name it as the gateways reach it, and the gateways may download from there.
    const results = new URL(arg('--public-url')!);
    expect(results.origin).toBe(simBase);
    expect(c.resultHosts).toContain(results.hostname);
    expect(c.allowPrivateNetwork).toBe(true);
    // Upstream callbacks go to the load balancer, on the port it listens on.
    expect(new URL(c.publicUrl!).hostname).toBe('lb');
  });

  it('has every instance take the client from the one proxy in front of it (nginx appends it to X-Forwarded-For)', () => {
    for (const [name, s] of gateways) {
      expect(s.ports, name).toBeUndefined(); // reachable through the load balancer only
      expect(loadConfig(envOf(s)).trustProxy, name).toEqual({ hops: 1 });
    }
    expect(read(join(DEPLOY, 'nginx.conf'))).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
  });

  it('starts the instances after the migration, Redis and the simulator, and the load balancer after both instances', () => {
    for (const [, s] of gateways) {
      expect(s.depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_healthy' },
        simulator: { condition: 'service_healthy' },
      });
      // Readiness: the load balancer's dependency waits for the database, the migrations and Redis.
      expect(s.healthcheck!.test.join(' ')).toContain(`http://127.0.0.1:${envOf(s).PORT}/readyz`);
    }
    expect(services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(services.lb!.depends_on).toEqual({
      gateway1: { condition: 'service_healthy' },
      gateway2: { condition: 'service_healthy' },
    });
    for (const name of ['postgres', 'redis', 'simulator']) expect(services[name]!.healthcheck, name).toBeDefined();
    expect(services.simulator!.healthcheck!.test.join(' ')).toContain(`http://127.0.0.1:${arg('--port')}/__sim/health`);
  });

  it('builds every Tollway service from the Dockerfile at the repository root', () => {
    for (const name of ['gateway1', 'gateway2', 'migrate', 'simulator']) {
      const s = services[name]!;
      expect(s.image).toBe('tollway:local');
      expect(resolve(DEPLOY, s.build!.context)).toBe(resolve(ROOT));
      expect(existsSync(join(ROOT, s.build!.dockerfile ?? 'Dockerfile'))).toBe(true);
    }
  });
});

describe('deploy/nginx.conf', () => {
  const conf = read(join(DEPLOY, 'nginx.conf'));

  it('balances over both instances on the port they listen on, and is the file the load balancer mounts', () => {
    const servers = [...conf.matchAll(/^\s*server\s+([\w.-]+:\d+)/gm)].map((m) => m[1]);
    expect(servers.sort()).toEqual(gateways.map(([n, s]) => `${n}:${envOf(s).PORT}`).sort());
    expect(services.lb!.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(conf).toMatch(/proxy_pass http:\/\/tollway;/);
    expect(conf).toMatch(/proxy_buffering off;/); // streams (SSE) are not held back
    // The Host as the browser sent it, port included: the console's Origin check compares the two.
    expect(conf).toMatch(/proxy_set_header Host \$http_host;/);
  });
});

describe('Dockerfile', () => {
  const lines = read(join(ROOT, 'Dockerfile'))
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: Array<{ name: string; lines: string[] }> = [];
  for (const l of lines) {
    const from = /^FROM\s+\S+\s+AS\s+(\S+)/i.exec(l);
    if (from) stages.push({ name: from[1]!, lines: [] });
    else stages.at(-1)?.lines.push(l);
  }
  const [build, runtime] = stages;

  it('has a build stage and a runtime stage that runs as an unprivileged user', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    const users = runtime!.lines.filter((l) => l.startsWith('USER '));
    expect(users.at(-1)).toBe('USER node');
    // Build tools only where the native binding is compiled.
    expect(build!.lines.join('\n')).toMatch(/apt-get install .*g\+\+/);
    expect(runtime!.lines.join('\n')).not.toMatch(/apt-get|npm (install|ci)/);
  });

  it('compiles dist/ and keeps only production dependencies, which is all the runtime stage copies', () => {
    const b = build!.lines.join('\n');
    expect(b).toContain('node scripts/build.mjs');
    expect(b).toContain('npm prune --omit=dev');
    const copied = runtime!.lines.filter((l) => l.startsWith('COPY')).map((l) => l.split(/\s+/).slice(-2)[0]);
    expect(copied.sort()).toEqual(['/app/dist', '/app/node_modules', '/app/package.json']);
    // What it runs is what the build writes (tsconfig.build.json: outDir dist, rootDir .).
    const entry = runtime!.lines.find((l) => l.startsWith('ENTRYPOINT'))!;
    expect(entry).toContain('dist/src/cli.js');
    expect(existsSync(join(ROOT, 'src', 'cli.ts'))).toBe(true);
    expect(runtime!.lines.find((l) => l.startsWith('CMD'))).toBe('CMD ["serve"]');
    // The probe (test/healthcheck.test.ts) is compiled with the rest.
    expect(runtime!.lines.find((l) => l.startsWith('HEALTHCHECK'))).toContain('"node", "dist/src/healthcheck.js"');
    expect(existsSync(join(ROOT, 'src', 'healthcheck.ts'))).toBe(true);
  });

  it('pulls no image but its base (NODE_IMAGE), so it builds from a mirror or an offline copy of that one image', () => {
    const text = read(join(ROOT, 'Dockerfile'));
    // A parser directive (`# syntax=…`) makes BuildKit fetch that frontend image from a registry before anything else.
    const directives = text.split('\n').filter((l) => /^#\s*syntax\s*=/i.test(l.trim()));
    expect(directives).toEqual([]);
    const froms = lines.filter((l) => /^FROM\s/i.test(l)).map((l) => l.split(/\s+/)[1]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own build-argument reference, as text
    expect(froms).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}']);
    // Every COPY --from names a stage of this file, not an image.
    for (const l of lines.filter((x) => /^COPY\s+--from=/i.test(x)))
      expect(stages.map((s) => s.name)).toContain(/--from=(\S+)/.exec(l)![1]);
  });

  it('copies into the build only files that exist and that .dockerignore keeps in the context', () => {
    const ignored = read(join(ROOT, '.dockerignore'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const isIgnored = (p: string) =>
      ignored.some((pat) => pat === p || (pat.startsWith('*') && p.endsWith(pat.slice(1))));
    expect(isIgnored('node_modules')).toBe(true);
    expect(isIgnored('dist')).toBe(true);
    const sources = build!.lines
      .filter((l) => l.startsWith('COPY') && !l.includes('--from'))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'simulator']));
    for (const src of sources) {
      expect(existsSync(join(ROOT, src)), src).toBe(true);
      expect(isIgnored(src), src).toBe(false);
    }
  });
});
