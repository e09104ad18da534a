// The layout's rules, checked on the sources: core/ knows no HTTP, the CLI never loads the HTTP stack, adapters know
// no metering, only the composition root builds repos, adapters, drivers and dispatchers, and only process entries
// reach it; no source file is over 300 lines.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Module specifiers a file imports; `runtimeOnly` leaves out `import type` (erased) and dynamic import(). */
function importsOf(file: string, runtimeOnly: boolean): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
    if (runtimeOnly && m[1]) continue;
    out.push(m[2]!);
  }
  if (!runtimeOnly) for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

const resolveFrom = (file: string, spec: string) => (spec.startsWith('.') ? resolve(dirname(file), spec) : spec);

describe('layering', () => {
  it('core/ imports nothing from http/ or fastify', () => {
    const bad = sources(join(SRC, 'core')).flatMap((f) =>
      importsOf(f, false)
        .map((s) => resolveFrom(f, s))
        .filter((s) => s.startsWith(join(SRC, 'http')) || s === 'fastify' || s.startsWith('@fastify/'))
        .map((s) => `${relative(ROOT, f)} → ${relative(ROOT, s)}`),
    );
    expect(bad).toEqual([]);
  });

  it('the CLI loads no http/ module and no fastify until it serves (static runtime imports, transitively)', () => {
    const seen = new Set<string>();
    const reached: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of importsOf(file, true)) {
        const target = resolveFrom(file, spec);
        if (target.startsWith(join(SRC, 'http')) || target === 'fastify' || target.startsWith('@fastify/'))
          reached.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
        else if (target.startsWith(ROOT) && target.endsWith('.ts')) visit(target);
      }
    };
    // compose.ts loads the HTTP modules with import() when it builds a gateway (`serve`), never for an admin command.
    visit(join(SRC, 'cli.ts'));
    expect(reached).toEqual([]);
  });

  it('the OpenTelemetry SDK is loaded only when tracing is on: observe/otel.ts alone imports it, and only import() reaches otel.ts', () => {
    const otel = join(SRC, 'observe', 'otel.ts');
    const bad = sources(SRC).flatMap((f) =>
      importsOf(f, true)
        .filter(
          (spec) =>
            (f !== otel && spec.startsWith('@opentelemetry/')) ||
            resolveFrom(f, spec).replace(/\.ts$/, '') === otel.replace(/\.ts$/, ''),
        )
        .map((spec) => `${relative(ROOT, f)} → ${spec}`),
    );
    expect(bad).toEqual([]);
    const dynamic = sources(SRC).filter((f) => importsOf(f, false).some((spec) => resolveFrom(f, spec) === otel));
    expect(dynamic.map((f) => relative(ROOT, f))).toEqual(['src/observe/tracing.ts']);
  });

  it('only the composition root (compose.ts and its compose-*.ts parts) builds repos, adapters, drivers, clients and dispatchers', () => {
    const built =
      /new \w+(Repo|TaskDriver|VideoDriver)\(|new (CallbackDispatcher|KlingClient|KlingJwtSigner|StoreMeter|RequestLogWriter|TaskEngine)\(|(?<!function )(dashscopeTextAdapter|createSafeNet)\(/;
    // An upstream's folder declares its drivers (adapters/<upstream>/index.ts); only compose.ts calls that factory.
    const declares = (f: string) => /^adapters\/[\w-]+\/index\.ts$/.test(relative(SRC, f));
    const bad = sources(SRC)
      .filter((f) => !/^compose(-[\w-]+)?\.ts$/.test(relative(SRC, f)) && !declares(f))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .filter((line) => built.test(line) && !/^\s*(\/\/|\*)/.test(line))
          .map((line) => `${relative(ROOT, f)}: ${line.trim()}`),
      );
    expect(bad).toEqual([]);
  });

  it("the upstreams' driver factories are called by the composition root alone (its task side)", () => {
    const calls = sources(SRC).filter((f) => /\.drivers\(/.test(readFileSync(f, 'utf8')));
    expect(calls.map((f) => relative(ROOT, f))).toEqual(['src/compose-tasks.ts']);
  });

  it('adapters/ imports nothing from metering/: drivers report what the upstream said, core decides the charge', () => {
    const bad = sources(join(SRC, 'adapters')).flatMap((f) =>
      importsOf(f, false)
        .map((s) => resolveFrom(f, s))
        .filter((s) => s.startsWith(join(SRC, 'metering')))
        .map((s) => `${relative(ROOT, f)} → ${relative(ROOT, s)}`),
    );
    expect(bad).toEqual([]);
  });

  it('store/ imports no domain room: only value types (vocabulary/), the task vocabulary, json/, errors/ and runtime/', () => {
    const allowed = (target: string) =>
      ['store', 'vocabulary', 'json', 'errors', 'runtime'].some((d) => target.startsWith(join(SRC, d) + sep)) ||
      target === join(SRC, 'tasks', 'vocabulary.ts');
    const bad = sources(join(SRC, 'store')).flatMap((f) =>
      importsOf(f, false)
        .filter((spec) => spec.startsWith('.') && !allowed(resolveFrom(f, spec)))
        .map((spec) => `${relative(ROOT, f)} -> ${spec}`),
    );
    expect(bad).toEqual([]);
  });

  it('only the process entries (main, the CLI, process life) import compose.ts', () => {
    const compose = join(SRC, 'compose.ts');
    const entries = ['src/cli.ts', 'src/cli/args.ts', 'src/main.ts', 'src/process-life.ts', 'src/poller-worker.ts'];
    const importers = sources(SRC)
      .filter((f) => importsOf(f, false).some((spec) => resolveFrom(f, spec) === compose))
      .map((f) => relative(ROOT, f));
    expect(importers.filter((f) => !entries.includes(f))).toEqual([]);
    expect(importers.length).toBeGreaterThan(0);
  });

  it('compose.ts only wires (at most 300 lines), and no source file is over 300 lines', () => {
    const lines = (f: string) => readFileSync(f, 'utf8').split('\n').length - 1;
    expect(lines(join(SRC, 'compose.ts'))).toBeLessThanOrEqual(300);
    const over = sources(SRC)
      .filter((f) => lines(f) > 300)
      .map((f) => `${relative(ROOT, f)}: ${lines(f)}`);
    expect(over).toEqual([]);
  });

  it('compose.ts builds one Kling client and one outbound-network guard, and assigns no listener after construction', () => {
    const text = readFileSync(join(SRC, 'compose.ts'), 'utf8');
    expect(text.match(/new KlingClient\(/g)).toHaveLength(1);
    expect(text.match(/createSafeNet\(/g)).toHaveLength(1);
    for (const f of ['compose.ts', 'process-life.ts']) {
      expect(readFileSync(join(SRC, f), 'utf8').match(/^\s*(deps|vidx|ctx)\.\w+\s*=[^=]/gm)).toBeNull();
    }
  });
});
