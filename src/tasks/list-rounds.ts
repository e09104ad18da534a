// Many open tasks on one upstream account are followed through the account's task list, not one query each: a round
// reads the list pages covering every open task of the account (each page one query of its query rate), compares each
// task's listed status with the last round's, and only the tasks that changed are looked at — a finished one gets the
// single query that brings its result and usage, a started one has its state written. An account's round runs on one
// instance at a time (claimRound), at most every listIntervalMs, and less often when its pages would take more than
// half of its query rate; its pages wait for room in that rate. A round that cannot finish within its interval is
// cut short and changes nothing: the next one lists again, knowing the list's length. The list's own numbers are not
// trusted: a round reads at most the pages its open tasks need (roundPages), and keeps at most the page size asked for
// from a page; a round cut at that many pages speaks only for the tasks it saw (the others keep their own polls).
import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import type { Channel } from '../routing/channel-registry.ts';
import type { Database } from '../store/schema.ts';
import type { PollSchedule } from '../store/repos/task-claim.ts';
import { OpenTasksByChannel, openTasksByUpstreamIds } from '../store/repos/task-accounts.ts';
import { runLimited } from './limit.ts';
import type { PollOutcome, TaskDriver, TaskRecord } from './types.ts';
import type { QueryRate } from '../limits/query-rate.ts';
import type { TaskEngineOptions } from './options.ts';

/** Fewer open tasks than this on an account are asked about one by one. */
export const LIST_MIN_TASKS = 4;

export interface ListRoundDeps {
  db: Kysely<Database>;
  channels: { forTask(id: string): Channel | undefined };
  logger: Logger;
  /** The accounts' query rates; also what lets one instance run an account's round per interval. */
  queryRate: QueryRate;
  /**
   * A task the list shows finished: its own query, under its lease. False when it has not ended yet (no room in the
   * query rate, or its query failed).
   */
  finish(t: TaskRecord): Promise<boolean>;
  /** A task the list shows in another open state: that state written (no query). */
  move(t: TaskRecord, out: PollOutcome): Promise<void>;
  options: Pick<TaskEngineOptions, 'listIntervalMs' | 'pollTimeoutMs' | 'upstreamQueryQps' | 'pollMaxMs'>;
  /** The engine's clock (the meter's unless given): round times are compared with task times. */
  now: () => number;
  /** The poller is stopping: a round waiting for the query rate ends (a stop is not held up by a long list). */
  stopping?: () => boolean;
}

/** An account a pass follows by rounds, for one task kind. */
interface Followed {
  kind: string;
  driver: TaskDriver;
  account: string;
  channel: Channel;
  channelIds: string[];
  count: number;
  oldest: number;
}

interface Seen {
  at: number;
  statuses: Map<string, string>;
  /** The list had more pages than the round read (roundPages): it does not speak for the tasks it did not show. */
  partial: boolean;
}

/** Tasks created up to this long before the oldest open one are listed too (the two clocks may differ). */
const CLOCK_MARGIN_MS = 60_000;
/** Shortest time between two passes (ListRounds.run), so a pass's count of open tasks runs at most once a second. */
const PASS_MS = 1000;
/** A listed task's own poll comes after this many of the longest back-off (ListRounds.listed). */
export const LISTED_POLL_BACKOFFS = 4;
/** Changed tasks read from the store per turn. */
const HANDLE_SLICE = 256;
/** The page size assumed for a driver that does not say. */
const DEFAULT_PAGE_SIZE = 100;

/**
 * The most pages a round reads for `open` tasks of the account on pages of `pageSize`: theirs, as many again for the
 * account's other tasks created since the oldest of them, and two more — never what the list says it has.
 */
export function roundPages(open: number, pageSize: number): number {
  return 2 * Math.ceil(open / Math.max(1, pageSize)) + 2;
}

/**
 * Whether an account's list round that began at `at` still speaks for its tasks: for three of its intervals, since
 * a round or two may be cut short or fail in between. `intervalMs`: the account's interval between rounds.
 */
export function roundFresh(at: number, intervalMs: number, now: number): boolean {
  return now - at <= 3 * intervalMs;
}

export class ListRounds {
  private passAt = Number.NEGATIVE_INFINITY;
  private readonly seen = new Map<string, Seen>();
  /** Per account: upstream ids the list showed changed that were not handled yet (the query rate ran out). */
  private readonly pending = new Map<string, Map<string, string>>();
  /** Per account: how many pages its list had at the last page read. */
  private readonly pages = new Map<string, number>();
  /** The accounts (per task kind) the last pass followed by rounds, with their channels that have open tasks. */
  private followed: Followed[] = [];
  private readonly openByChannel: OpenTasksByChannel;

  constructor(private readonly deps: ListRoundDeps) {
    this.openByChannel = new OpenTasksByChannel(deps.db);
  }

  /** The account's last round, still fresh, saw this upstream task: no query of its own is needed. */
  covers(account: string, upstreamTaskId: string): boolean {
    const s = this.seen.get(account);
    return s !== undefined && this.fresh(account, s) && s.statuses.has(upstreamTaskId);
  }

  /**
   * The channels (per task kind) of the accounts whose last round is still fresh, and how long their queued and running
   * tasks wait for a poll of their own (repos/task-claim.ts): every round shows them, so that poll is only a fallback
   * for when the rounds stop. A task no round has shown yet is shown by the next one, which lists every open task.
   */
  listed(): NonNullable<PollSchedule['listed']> {
    const kinds: Array<{ kind: string; channels: string[] }> = [];
    for (const a of this.followed) {
      const s = this.seen.get(a.account);
      if (s === undefined || s.partial || !this.fresh(a.account, s)) continue;
      const k = kinds.find((x) => x.kind === a.kind);
      if (k) k.channels.push(...a.channelIds);
      else kinds.push({ kind: a.kind, channels: [...a.channelIds] });
    }
    return { kinds, ms: LISTED_POLL_BACKOFFS * this.deps.options.pollMaxMs };
  }

  /** The account's last round is still fresh, at the interval its list's length sets (intervalOf). */
  private fresh(account: string, s: Seen): boolean {
    return roundFresh(s.at, this.intervalOf(this.pages.get(account) ?? 1), this.deps.now());
  }

  /**
   * One pass over the accounts with open tasks of each listing driver's kind. The poller asks at every round; a pass
   * counts the open tasks per channel, so passes are at most PASS_MS apart (or the list interval, when shorter).
   */
  async run(drivers: ReadonlyMap<string, TaskDriver>): Promise<void> {
    const interval = this.deps.options.listIntervalMs;
    if (interval <= 0 || this.deps.now() - this.passAt < Math.min(interval, PASS_MS)) return;
    this.passAt = this.deps.now();
    const followed: Followed[] = [];
    for (const [kind, driver] of drivers) {
      if (!driver.listPage || !driver.queryAccount) continue;
      const accounts = new Map<string, Followed>();
      for (const row of await this.openByChannel.read(kind)) {
        const channel = this.deps.channels.forTask(row.channelId);
        if (!channel) continue;
        const account = driver.queryAccount(channel);
        const a = accounts.get(account);
        if (a) {
          a.channelIds.push(row.channelId);
          a.count += row.count;
          a.oldest = Math.min(a.oldest, row.oldest);
        } else
          accounts.set(account, {
            kind,
            driver,
            account,
            channel,
            channelIds: [row.channelId],
            count: row.count,
            oldest: row.oldest,
          });
      }
      for (const a of accounts.values()) if (a.count >= LIST_MIN_TASKS) followed.push(a);
    }
    this.followed = followed;
    for (const a of followed) {
      try {
        await this.round(a);
      } catch (e) {
        this.deps.logger.warn(
          { account: a.account, kind: a.kind, err: String(e) },
          'task list round failed; the tasks are asked about again later',
        );
      }
    }
  }

  private intervalOf(pages: number): number {
    const o = this.deps.options;
    // The pages may take at most half of the account's query rate.
    return Math.max(o.listIntervalMs, o.upstreamQueryQps > 0 ? Math.ceil((pages * 2000) / o.upstreamQueryQps) : 0);
  }

  private async round(a: Followed): Promise<void> {
    const { kind, driver, account } = a;
    const pending = this.pending.get(account) ?? new Map<string, string>();
    this.pending.set(account, pending);
    // What the last round found changed comes first; no new list while some of it waits for the query rate.
    if (pending.size > 0 && !(await this.handle(kind, driver, account, a.channelIds, pending))) return;
    const last = this.seen.get(account);
    // The pages its last round found, even one cut short: the first round of a long list learns its length.
    const interval = this.intervalOf(this.pages.get(account) ?? 1);
    if (last && this.deps.now() - last.at < interval) return;
    if (!(await this.deps.queryRate.claimRound(account, interval))) return;
    const startedAt = this.deps.now();
    const statuses = new Map<string, string>();
    const limit = { timeoutMs: this.deps.options.pollTimeoutMs };
    const pageSize = driver.listPageSize ?? DEFAULT_PAGE_SIZE;
    const most = roundPages(a.count, pageSize);
    let pages = 1;
    let listed = 1;
    for (let page = 1; page <= pages; page++) {
      // The pages come at the query rate's pace (they were given half of it: intervalOf); a round that cannot finish
      // within its interval is cut short, and the next one lists again.
      if (!(await this.admitPage(account, startedAt + Math.max(interval, this.intervalOf(pages))))) return;
      const p = await driver.listPage!(a.channel, a.oldest - CLOCK_MARGIN_MS, page, limit);
      listed = Number.isFinite(p.totalPages) ? Math.max(1, Math.floor(p.totalPages)) : page;
      pages = Math.min(listed, most);
      this.pages.set(account, pages);
      for (const t of p.tasks.slice(0, pageSize)) statuses.set(t.upstreamTaskId, t.status);
    }
    if (listed > pages)
      this.deps.logger.warn(
        { account, listed_pages: listed, read_pages: pages },
        'task list longer than its open tasks need: read in part',
      );
    for (const [id, status] of statuses) if (last?.statuses.get(id) !== status) pending.set(id, status);
    this.seen.set(account, { at: this.deps.now(), statuses, partial: listed > pages });
    await this.deps.queryRate.roundDone(account, startedAt);
    await this.handle(kind, driver, account, a.channelIds, pending);
  }

  /**
   * Wait for room in the account's query rate for one more page, until `until` (ms); false when there was none by then.
   */
  private async admitPage(account: string, until: number): Promise<boolean> {
    const stepMs = Math.ceil(1000 / Math.max(1, this.deps.options.upstreamQueryQps));
    while (!(await this.deps.queryRate.take(account, 'poller'))) {
      if (this.deps.now() + stepMs > until || this.deps.stopping?.()) return false;
      await new Promise((r) => setTimeout(r, stepMs));
    }
    return true;
  }

  /** Apply what the list showed changed; true when all of it was handled. */
  private async handle(
    kind: string,
    driver: TaskDriver,
    account: string,
    channelIds: string[],
    pending: Map<string, string>,
  ): Promise<boolean> {
    // A slice at a time: a backlog of finished tasks waits for the query rate, not for reading all of it each turn.
    const ids = [...pending.keys()].slice(0, HANDLE_SLICE);
    const tasks = await openTasksByUpstreamIds(this.deps.db, kind, channelIds, ids);
    const ours = new Set(tasks.map((t) => t.upstreamTaskId));
    // Not ours, or already finished: nothing to do.
    for (const id of ids) if (!ours.has(id)) pending.delete(id);
    let spent = false;
    // Enough in flight that the query rate, not the round trips, sets the pace.
    await runLimited(tasks, 16, async (t) => {
      const id = t.upstreamTaskId!;
      const status = pending.get(id)!;
      const open = driver.listOpenStatuses?.[status];
      if (open) {
        if (open !== t.state || status !== t.upstreamStatus)
          await this.deps.move(t, { state: open, upstreamStatus: status, progress: open === 'queued' ? 0 : 50 });
        pending.delete(id);
      } else if (!spent) {
        if (await this.deps.finish(t)) pending.delete(id);
        else spent = true;
      }
    });
    if (spent)
      this.deps.logger.debug({ account, waiting: pending.size }, 'finished tasks wait for room in the query rate');
    return pending.size === 0;
  }
}
