// A running gateway releases reservations a stopped instance left open, once they are older than their time to live.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { until } from '../support/wait.ts';

const t = useHarness({ env: { TOLLWAY_RESERVATION_TTL_MS: '1000' } });

describe('reservation reaper', () => {
  it('an open reservation older than TOLLWAY_RESERVATION_TTL_MS goes back to the quota; a fresh one stays', async () => {
    const h = t.h;
    const tok = await h.token({ name: 'reaped', quota: 100_000 });
    const db = h.store.db;
    // A dead instance's reservation: held against the token, never settled.
    await h.gw.deps.meter.reserve('req_dead_instance', tok.id, 40_000);
    await db
      .updateTable('holds')
      .set({ created_at: Date.now() - 10_000 })
      .where('hold_key', '=', 'req_dead_instance')
      .execute();
    await h.gw.deps.meter.reserve('req_live_call', tok.id, 10_000);
    await until(
      async () =>
        (
          await db
            .selectFrom('holds')
            .select('state')
            .where('hold_key', '=', 'req_dead_instance')
            .executeTakeFirstOrThrow()
        ).state === 'released',
      'the dead reservation released',
    );
    const row = await db
      .selectFrom('tokens')
      .select(['held', 'spent'])
      .where('id', '=', tok.id)
      .executeTakeFirstOrThrow();
    expect([Number(row.held), Number(row.spent)]).toEqual([10_000, 0]);
    // Logged once the reaper's release has answered: the hold may be seen released first.
    await until(
      () => h.logs.some((l) => l.includes('reservations left open by a stopped instance released')),
      'the reaper logged',
    );
  });
});
