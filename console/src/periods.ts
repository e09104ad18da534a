// Calendar periods as the bills name them: UTC days (YYYY-MM-DD) and months (YYYY-MM).

/** The labels of the last `n` UTC days or months up to the one holding `now`, oldest first, with their start in ms. */
export function lastPeriods(period: 'day' | 'month', n: number, now: number): Array<[string, number]> {
  const d = new Date(now);
  return Array.from({ length: n }, (_, i) => {
    const back = n - 1 - i;
    const start =
      period === 'day'
        ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - back)
        : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1);
    const iso = new Date(start).toISOString();
    return [period === 'day' ? iso.slice(0, 10) : iso.slice(0, 7), start];
  });
}
