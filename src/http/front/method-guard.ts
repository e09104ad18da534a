// Fastify answers 404 for a known path with the wrong method; a demanding client expects 405 with Allow. The
// methods of each path are the route table's (a GET also answers HEAD).
import type { RouteRow } from './route-table.ts';

export class MethodGuard {
  private readonly routes: Array<{ re: RegExp; methods: Set<string> }> = [];

  constructor(rows: readonly RouteRow[]) {
    for (const r of rows) this.add(r.path, r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]);
  }

  private add(url: string, methods: string[]): void {
    const pattern = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
    const re = new RegExp(`^${pattern}/?$`);
    const existing = this.routes.find((r) => r.re.source === re.source);
    if (existing) for (const m of methods) existing.methods.add(m);
    else this.routes.push({ re, methods: new Set(methods) });
  }

  /** Methods allowed for a path, or null when no route has that path. */
  allowed(path: string): string[] | null {
    const out = new Set<string>();
    for (const r of this.routes) if (r.re.test(path)) for (const m of r.methods) out.add(m);
    return out.size ? [...out] : null;
  }
}
