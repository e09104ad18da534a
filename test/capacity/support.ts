// Helpers of the capacity scenarios: state a channel's limits through the admin API, make tenants, call chat.
import type { Harness } from '../support/harness.ts';

export const CHAT_MODEL = 'qwx3.7-plus';

export async function stateLimits(h: Harness, limits: unknown, name = 'sim-dashscope'): Promise<void> {
  const list = (await (await h.admin('/admin/channels')).json()) as { data: Array<{ id: string; name: string }> };
  const ch = list.data.find((c) => c.name === name)!;
  const r = await h.admin(`/admin/channels/${ch.id}`, { method: 'PATCH', json: { model_limits: limits } });
  if (r.status !== 200) throw new Error(`PATCH model_limits: ${r.status} ${await r.text()}`);
}

export interface Answer {
  status: number;
  ms: number;
  requestId: string;
  code: string | null;
  retryAfter: string | null;
}

export function chat(h: Harness, token: string, signal?: AbortSignal): Promise<Answer> {
  return chatAt(h.url, token, signal);
}

/** A chat call to the gateway instance at `base` (`model`: the public name asked for). */
export async function chatAt(base: string, token: string, signal?: AbortSignal, model = CHAT_MODEL): Promise<Answer> {
  const t0 = performance.now();
  const r = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    ...(signal ? { signal } : {}),
  });
  const body = (await r.json()) as { error?: { code?: string } };
  return {
    status: r.status,
    ms: performance.now() - t0,
    requestId: r.headers.get('x-request-id') ?? '',
    code: body.error?.code ?? null,
    retryAfter: r.headers.get('retry-after'),
  };
}

export const p95 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * 0.95) - 1)] ?? 0;

/** The most calls any `windowMs` span of arrival times holds. */
export function mostInWindow(at: number[], windowMs: number): number {
  const s = [...at].sort((a, b) => a - b);
  let most = 0;
  let j = 0;
  for (let i = 0; i < s.length; i++) {
    while (s[i]! - s[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * The two tenants for `runMs`: 24 clients of `noisy` in a loop, one call of `quiet` every 3 s; with several gateway
 * instances (`bases`), the noisy clients are spread over them and the quiet calls go to each in turn.
 */
export async function twoTenants(
  h: Harness,
  noisy: string,
  quiet: string,
  runMs: number,
  bases: readonly string[] = [h.url],
): Promise<{ noisy: Answer[]; quiet: Answer[] }> {
  const end = performance.now() + runMs;
  const noisyAnswers: Answer[] = [];
  const quietAnswers: Answer[] = [];
  const loop = async (_: unknown, i: number) => {
    while (performance.now() < end) noisyAnswers.push(await chatAt(bases[i % bases.length]!, noisy));
  };
  const quietLoop = async () => {
    const calls: Promise<void>[] = [];
    for (let i = 0; performance.now() < end; i++) {
      calls.push(chatAt(bases[i % bases.length]!, quiet).then((a) => void quietAnswers.push(a)));
      // The pause between calls, not an assertion: the quiet tenant's pace.
      await new Promise((r) => setTimeout(r, 3000));
    }
    await Promise.all(calls);
  };
  await Promise.all([...Array.from({ length: 24 }, loop), quietLoop()]);
  return { noisy: noisyAnswers, quiet: quietAnswers };
}
