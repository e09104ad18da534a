// The upstream capacity of the channels' accounts, live: per account and upstream model the limits in force and
// where each comes from, what this instance admitted in the last minute, calls in flight and queued per customer.
// Polled while the page is open (GET /admin/channels/{id}/capacity); channels naming one account show it once.
import { useEffect } from 'preact/hooks';
import { call } from '../../api.ts';
import { num, time } from '../../format.ts';
import { useLoad } from '../../use-load.ts';
import { plainName } from '../../name.tsx';

const RELOAD_MS = 2000;

type Three = { rpm: number | null; tpm: number | null; concurrency: number | null };
type Two = { rpm: number | null; tpm: number | null };

interface ModelCapacity {
  model: string;
  limits: Three;
  stated: Three;
  read: Two;
  learnt: Two;
  used: { requests: number; tokens: number };
  in_flight: number;
  waiting: number;
  waiting_by_customer: Record<string, number>;
  paused_until: number | null;
}

interface ChannelCapacity {
  channel_id: string;
  account: string;
  data: ModelCapacity[];
}

export interface CapacityChannel {
  id: string;
  name: string;
  status: 'enabled' | 'disabled';
}

/** One account's models, with the names of the channels naming it. */
interface AccountRows {
  account: string;
  channels: string[];
  data: ModelCapacity[];
}

async function loadAll(channels: readonly CapacityChannel[]): Promise<AccountRows[]> {
  const live = await Promise.all(
    channels
      .filter((c) => c.status === 'enabled')
      .map(async (c) => ({
        c,
        cap: await call<ChannelCapacity>(`/admin/channels/${encodeURIComponent(c.id)}/capacity`),
      })),
  );
  const byAccount = new Map<string, AccountRows>();
  for (const { c, cap } of live) {
    const a = byAccount.get(cap.account);
    if (a) a.channels.push(plainName(c.name));
    else byAccount.set(cap.account, { account: cap.account, channels: [plainName(c.name)], data: cap.data });
  }
  return [...byAccount.values()].filter((a) => a.data.length > 0);
}

function limitText(kind: 'rpm' | 'tpm' | 'concurrency', m: ModelCapacity): string | null {
  const v = m.limits[kind];
  if (v === null) return null;
  const from = m.stated[kind] !== null ? 'stated' : kind !== 'concurrency' && m.read[kind] !== null ? 'read' : 'learnt';
  return `${num(v)} ${kind === 'concurrency' ? 'at once' : kind} (${from})`;
}

export function ChannelCapacityTable({ channels }: { channels: readonly CapacityChannel[] }) {
  const key = channels.map((c) => `${c.id}:${c.status}`).join(',');
  const live = useLoad(() => loadAll(channels), [key]);
  useEffect(() => {
    const timer = setInterval(live.reload, RELOAD_MS);
    return () => clearInterval(timer);
  }, [live.reload]);
  const rows = live.data ?? [];
  return (
    <div class="table-wrap">
      {live.error && (
        <p role="alert" class="error">
          {live.error}
        </p>
      )}
      <table aria-label="Upstream capacity">
        <caption>
          {live.data === null
            ? 'Loading upstream capacity…'
            : rows.length === 0
              ? 'Upstream capacity: no limit stated, read or learnt on any account'
              : 'Upstream capacity per account and model (use, in flight and queue: this instance)'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Upstream model</th>
            <th scope="col">Limits</th>
            <th scope="col">Last minute</th>
            <th scope="col" class="num">
              In flight
            </th>
            <th scope="col">Queued</th>
          </tr>
        </thead>
        <tbody>
          {rows.flatMap((a) =>
            a.data.map((m) => (
              <tr key={`${a.account}|${m.model}`}>
                <th scope="row">
                  <code>{a.account}</code>
                  <div class="muted">{a.channels.join(', ')}</div>
                </th>
                <td>
                  <code>{m.model}</code>
                </td>
                <td>
                  {(['rpm', 'tpm', 'concurrency'] as const)
                    .map((k) => limitText(k, m))
                    .filter((x): x is string => x !== null)
                    .map((x) => (
                      <div key={x}>{x}</div>
                    ))}
                  {m.paused_until !== null && <div class="error">paused until {time(m.paused_until)}</div>}
                </td>
                <td>
                  {num(m.used.requests)} requests, {num(m.used.tokens)} tokens
                </td>
                <td class="num">{num(m.in_flight)}</td>
                <td>
                  {m.waiting === 0
                    ? 'none'
                    : `${num(m.waiting)} waiting: ${Object.entries(m.waiting_by_customer)
                        .map(([who, n]) => `${who} ${num(n)}`)
                        .join(', ')}`}
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}
