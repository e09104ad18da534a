// `tollway stats …`: the admin API's overview figures (GET /admin/stats) on the store — requests, errors and spend per
// time bucket, the busiest models, tokens and (--group-by account) accounts — with the same parameters and validation.
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.ts';
import { overviewStats, statsQuery } from '../core/admin/stats.ts';
import { print, UsageError, withAdmin } from './args.ts';

const OPTIONS = { window: { type: 'string' }, 'group-by': { type: 'string' } } as const;

export async function statsCommand(config: Config, args: string[]): Promise<number> {
  // Strict parsing: a flag not in OPTIONS is refused.
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  if (positionals.length > 0) throw new UsageError(`tollway stats takes flags only (got "${positionals[0]}")`);
  const { window, groupBy } = statsQuery({ window: values.window, group_by: values['group-by'] });
  // A one-shot command has no request-log queue to flush: what it reads is what the gateways have written.
  return withAdmin(config, async (deps) => print(await overviewStats(deps, window, Date.now(), groupBy)));
}
