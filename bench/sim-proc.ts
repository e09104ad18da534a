// The upstream simulator with no artificial delay, in its own process. TOLLWAY_SIM_TASK_MS sets how long its
// async tasks run (bench:tasks: minutes); {type:'task-gaps'} reports how often open DashScope tasks were queried.
// Its rate limits are on but far above any bench's load, unless TOLLWAY_SIM_RPM / _TPM / _KLING_RPM / _MODEL_LIMITS
// set them (a bench that measures throttling).
import { startSimulator } from '../simulator/index.ts';
import { simLimitOptions, simLimitsConfig } from '../src/config/sim-env.ts';
import { resultVideoUrl } from '../simulator/dashscope/results-video.ts';
import { createDashscopeTask, dashscopeTaskStore, statusOf } from '../simulator/dashscope/tasks.ts';
import { answerStats } from './proc-stats.ts';
import { dashscopeQueryStats } from '../simulator/dashscope/query-budget.ts';
import { rateLimitStats } from '../simulator/rate-limits.ts';

const taskMs = process.env.TOLLWAY_SIM_TASK_MS;
const qps = process.env.TOLLWAY_SIM_QUERY_QPS;
const GENEROUS = { dashscopeRpm: 100_000_000, dashscopeTpm: 100_000_000_000, klingRpm: 100_000_000 };
const sim = await startSimulator({
  latencyMs: 0,
  ...(taskMs ? { taskDurationMs: Number(taskMs) } : {}),
  ...(qps ? { dashscopeQueryQps: Number(qps) } : {}),
  ...GENEROUS,
  ...simLimitOptions(simLimitsConfig(process.env)),
});
answerStats();
process.on('message', (m: unknown) => {
  const type = (m as { type?: string })?.type;
  // bench:tasks: video tasks as a wan2.7-t2v creation makes them (5 s at 720P), without their HTTP round trips.
  if (type === 'seed-tasks') {
    const n = (m as { n: number }).n;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const usage = {
        video_count: 1,
        video_duration: 5,
        duration: 5,
        output_video_duration: 5,
        input_video_duration: 0,
        SR: 720,
        ratio: '16:9',
      };
      const t = createDashscopeTask(sim.ctx, {
        area: 'video-synthesis',
        model: 'wan2.7-t2v',
        fault: null,
        extra: { orig_prompt: `bench task ${i}` },
        succeed: (x) => ({ output: { video_url: resultVideoUrl(sim.ctx, x.id).url }, usage }),
      });
      ids.push(t.id);
    }
    process.send?.({ type, ids });
    return;
  }
  // bench:capacity: how many chat calls reached the simulator.
  if (type === 'chat-calls') {
    process.send?.({ type, n: sim.requestsTo('/chat/completions').length });
    return;
  }
  // bench:tasks: the account's task queries and how many of its tasks have finished.
  if (type === 'query-stats') {
    const q = dashscopeQueryStats(sim.ctx).get('main');
    const finished = [...dashscopeTaskStore(sim.ctx).values()].filter((t) => statusOf(t) === 'SUCCEEDED').length;
    process.send?.({
      type,
      queries: q?.queries ?? 0,
      single: q?.single ?? 0,
      lists: q?.lists ?? 0,
      throttled: q?.throttled ?? 0,
      peakPerSecond: q?.peakPerSecond ?? 0,
      finished,
    });
    return;
  }
  // bench:capacity: the calls the simulated accounts admitted and refused, per account and model, by limit.
  if (type === 'rate-stats') {
    const books = [...rateLimitStats(sim.ctx)].map(([key, b]) => ({
      key,
      admitted: b.admitted,
      refused: { ...b.refused },
    }));
    process.send?.({ type, books });
    return;
  }
  if (type !== 'task-gaps' && type !== 'task-gaps-reset') return;
  const now = Date.now();
  let open = 0;
  let queries = 0;
  let worstGapMs = 0;
  for (const t of dashscopeTaskStore(sim.ctx).values()) {
    queries += t.queries;
    if (type === 'task-gaps-reset') t.maxGapMs = 0;
    const s = statusOf(t, now);
    if (s !== 'PENDING' && s !== 'RUNNING') continue;
    open++;
    // The longest wait between two queries since the reset, or the wait still running now.
    worstGapMs = Math.max(worstGapMs, t.maxGapMs, now - t.lastQueryAt);
  }
  process.send?.({ type, open, queries, worstGapMs });
});
process.send?.({ type: 'ready', port: sim.port });
