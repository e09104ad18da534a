// DashScope's task list (`GET /api/v1/tasks`): one page of an account's tasks created in a time window, each with its
// status only (no result, no usage: a finished task still needs its own query). Translation only.
import { isObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CallLimit } from '../../tasks/types.ts';
import type { UpstreamClient } from '../http-client.ts';
import { getTaskJson, type DashscopeTarget } from './video.ts';

/** The page size asked for: the largest the upstream is assumed to serve (its maximum is not documented). */
export const LIST_PAGE_SIZE = 100;

/** The listed statuses of a task not yet finished, and the state each means; any other status is an ending. */
export const LIST_OPEN_STATUSES = { PENDING: 'queued', RUNNING: 'in_progress', SUSPENDED: 'in_progress' } as const;

export interface ListedTask {
  upstreamTaskId: string;
  /** PENDING, RUNNING, SUSPENDED, SUCCEEDED, FAILED or CANCELED. */
  status: string;
}

export interface TaskListPage {
  tasks: ListedTask[];
  totalPages: number;
}

/** `YYYYMMDDhhmmss` in Beijing time (UTC+8), as the API takes its time bounds. */
export function listTime(ms: number): string {
  return new Date(ms + 8 * 3600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** One page of the account's tasks created at or after `createdFrom` (ms), newest first. */
export async function listTaskPage(
  client: UpstreamClient,
  t: DashscopeTarget,
  createdFrom: number,
  pageNo: number,
  limit: CallLimit,
): Promise<TaskListPage> {
  const json = await getTaskJson(
    client,
    t,
    `/api/v1/tasks?page_no=${pageNo}&page_size=${LIST_PAGE_SIZE}&start_time=${listTime(createdFrom)}`,
    limit,
  );
  if (!isObject(json) || !Array.isArray(json.data))
    throw new GatewayError('upstream_error', 'The upstream task list answer has no list');
  const tasks: ListedTask[] = [];
  // No more than the page size asked for: a longer page is not the list's, and is not walked.
  for (const item of json.data.slice(0, LIST_PAGE_SIZE)) {
    if (isObject(item) && typeof item.task_id === 'string' && typeof item.status === 'string')
      tasks.push({ upstreamTaskId: item.task_id, status: item.status });
  }
  const totalPages =
    typeof json.total_page === 'number' && Number.isFinite(json.total_page)
      ? Math.max(1, Math.floor(json.total_page))
      : pageNo;
  return { tasks, totalPages };
}
