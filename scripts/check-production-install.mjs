// npm run check:install (a CI step): a production install runs the built gateway, not the sources. In a scratch
// copy of the repository's tracked files: `npm ci --omit=dev` (the committed lockfile, no dev dependencies — so no
// tsx and no vitest; `prepare` builds dist/), the sources removed, then `tollway serve` in demo mode must start and
// answer GET /v1/models with the demo token it prints. Fails (exit 1) on any step that does not.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './dist.mjs';

const dir = mkdtempSync(join(tmpdir(), 'tollway-prod-install-'));
const fail = (msg) => {
  console.error(`check:install: ${msg}`);
  process.exitCode = 1;
};

function copyTracked() {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(ROOT, f))) continue; // deleted in the work tree, not yet committed
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
}

function devOnlyPackages() {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  return Object.entries(lock.packages ?? {})
    .filter(([path, meta]) => path !== '' && meta.dev === true)
    .map(([path]) => path);
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function serveAndAsk() {
  const port = await freePort();
  const child = spawn(process.execPath, [join(dir, 'bin', 'tollway.mjs'), 'serve'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TOLLWAY_DATA_DIR: join(dir, 'data'),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const started = await Promise.race([
      new Promise((resolve) => {
        const t = setInterval(() => {
          if (/Try: curl /.test(out)) {
            clearInterval(t);
            resolve(true);
          }
        }, 100);
      }),
      exited.then(() => false),
      new Promise((resolve) => setTimeout(() => resolve(false), 60_000)),
    ]);
    if (!started) return fail(`tollway serve did not start:\n${out}`);
    const token = /Demo token: (tw-\S+)/.exec(out)?.[1];
    if (!token) return fail(`no demo token printed:\n${out}`);
    const r = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
    const body = await r.json();
    if (r.status !== 200 || !Array.isArray(body.data) || !body.data.some((m) => m.id === 'qwx3.7-plus'))
      return fail(`GET /v1/models answered ${r.status}: ${JSON.stringify(body)}`);
    console.log(`check:install: the production install serves GET /v1/models (${body.data.length} models) from dist/`);
    // The operator console's bundle, built by the install, is served too.
    const page = await fetch(`http://127.0.0.1:${port}/console/app.js`);
    if (page.status !== 200 || !(page.headers.get('content-security-policy') ?? '').includes("script-src 'self'"))
      return fail(`GET /console/app.js answered ${page.status}`);
    console.log('check:install: the production install serves the operator console');
  } finally {
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0 && process.exitCode !== 1) fail(`tollway serve exited with ${code} on SIGTERM:\n${out}`);
  }
}

try {
  copyTracked();
  const install = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  if (install.status !== 0) fail(`npm ci --omit=dev failed (${install.status})`);
  else {
    // The lockfile marks what only the dev dependencies reach (`dev: true`); none of it may be installed. A package a
    // production dependency reaches, even as an optional peer (stripe's @types/node), is not marked and may be.
    const devOnly = devOnlyPackages();
    if (!devOnly.includes('node_modules/tsx') || !devOnly.includes('node_modules/vitest'))
      fail('the lockfile does not mark tsx and vitest as dev dependencies');
    for (const path of devOnly) if (existsSync(join(dir, path))) fail(`a dev dependency was installed: ${path}`);
    if (!existsSync(join(dir, 'dist', 'src', 'cli.js'))) fail('npm ci --omit=dev did not build dist/');
    // Without its sources the copy can only run what the install built.
    for (const d of ['src', 'simulator', 'bench']) rmSync(join(dir, d), { recursive: true, force: true });
    if (process.exitCode !== 1) await serveAndAsk();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
