// Fastify answers 404 for a known path with the wrong method; a demanding client expects 405.
export class RouteTable {
  private readonly routes: Array<{ re: RegExp; methods: Set<string> }> = [];

  add(url: string, methods: string | string[]): void {
    const pattern = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
    const re = new RegExp(`^${pattern}/?$`);
    const existing = this.routes.find((r) => r.re.source === re.source);
    const list = (Array.isArray(methods) ? methods : [methods]).map((m) => m.toUpperCase());
    if (existing) list.forEach((m) => existing.methods.add(m));
    else this.routes.push({ re, methods: new Set(list) });
  }

  /** Methods allowed for a path, or null when no route has that path. */
  allowed(path: string): string[] | null {
    const out = new Set<string>();
    for (const r of this.routes) if (r.re.test(path)) r.methods.forEach((m) => out.add(m));
    return out.size ? [...out] : null;
  }
}
