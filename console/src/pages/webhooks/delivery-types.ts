// A delivery as GET /admin/webhooks/{id}/deliveries, the test and the redelivery answer it.
export interface Delivery {
  id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_try_at: number | null;
  delivered_at: number | null;
  created_at: number;
  holder: { kind: 'token' | 'account'; id: string; name: string | null } | null;
  threshold: string | null;
}

/** One attempt's outcome as a sentence: what a Send test or a Redeliver button shows. */
export function outcomeText(what: string, d: Delivery): string {
  if (d.state === 'delivered') return `${what} delivered: the receiver answered ${d.last_status ?? '2xx'}.`;
  const why = d.last_error ?? 'not sent';
  return d.state === 'pending'
    ? `${what} not delivered (${why}); it is retried with back-off.`
    : `${what} not delivered (${why}).`;
}
