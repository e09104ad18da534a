// Spend (or requests) per day as an SVG bar chart, stacked by model, that scales to its container's width. Colours
// are attributes, not inline styles (the CSP allows none). The figures are given as a table beside it too.

export const COLORS = ['#2563eb', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];

export interface DaySeries {
  day: string;
  values: Record<string, number>;
}

export function StackedBars({ label, days, models }: { label: string; days: DaySeries[]; models: string[] }) {
  const W = 600;
  const H = 180;
  const max = Math.max(1, ...days.map((d) => models.reduce((s, m) => s + (d.values[m] ?? 0), 0)));
  const step = W / Math.max(1, days.length);
  const bar = Math.max(1, step * 0.8);
  return (
    <figure class="portal-chart">
      <svg viewBox={`0 0 ${W} ${H + 16}`} role="img" aria-label={label} preserveAspectRatio="none">
        <line x1="0" y1={H} x2={W} y2={H} stroke="#9ca3af" stroke-width="1" />
        {days.map((d, i) => {
          let y = H;
          return (
            <g key={d.day}>
              {models.map((m, j) => {
                const v = d.values[m] ?? 0;
                if (v <= 0) return null;
                const h = (v / max) * (H - 4);
                y -= h;
                return (
                  <rect
                    key={m}
                    class="bar"
                    x={i * step + (step - bar) / 2}
                    y={y}
                    width={bar}
                    height={h}
                    fill={COLORS[j % COLORS.length]}
                  >
                    <title>{`${d.day} · ${m}: ${v.toLocaleString('en')}`}</title>
                  </rect>
                );
              })}
            </g>
          );
        })}
        <text x="0" y={H + 14} font-size="11" fill="#6b7280">
          {days[0]?.day}
        </text>
        <text x={W} y={H + 14} font-size="11" fill="#6b7280" text-anchor="end">
          {days[days.length - 1]?.day}
        </text>
      </svg>
      <figcaption>
        {models.map((m, j) => (
          <span key={m} class="legend">
            <svg width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" fill={COLORS[j % COLORS.length]} />
            </svg>{' '}
            {m}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
