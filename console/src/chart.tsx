// A uPlot time-series chart that follows its container's width. The figures are also given as text beside it.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Line {
  label: string;
  values: number[];
  color: string;
  format?: (v: number) => string;
}

/** Half the smallest gap between points, in seconds (a day when there is one point). */
function pad(times: number[]): number {
  let step = Infinity;
  for (let i = 1; i < times.length; i++) step = Math.min(step, times[i]! - times[i - 1]!);
  return (Number.isFinite(step) && step > 0 ? step : 86_400_000) / 2000;
}

export function Chart({
  label,
  times,
  lines,
  height = 180,
  bars = false,
}: {
  label: string;
  times: number[];
  lines: Line[];
  height?: number;
  bars?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      // Bars: half a step of room either side, so the first and last are whole (one bar: a day either side).
      scales: {
        x: {
          time: true,
          ...(bars && times.length > 0
            ? {
                range: (): uPlot.Range.MinMax => [
                  times[0]! / 1000 - pad(times),
                  times[times.length - 1]! / 1000 + pad(times),
                ],
              }
            : {}),
        },
      },
      // The value axis as wide as its longest label.
      axes: [
        {},
        {
          size: (_u, values) => Math.max(48, Math.max(0, ...(values ?? []).map((v) => v.length)) * 8 + 18),
          values: (_u, ticks) => ticks.map((v) => (lines[0]?.format ? lines[0].format(v) : String(v))),
        },
      ],
      series: [
        {},
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.color,
          fill: `${l.color}33`,
          width: 2,
          points: { show: false },
          ...(bars ? { paths: uPlot.paths.bars!({ size: [0.8, 40] }) } : {}),
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : l.format ? l.format(v) : v.toLocaleString('en')),
        })),
      ],
    };
    const plot = new uPlot(opts, [times.map((t) => t / 1000), ...lines.map((l) => l.values)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, lines, height, bars]);
  return <div class="chart" ref={box} role="img" aria-label={label} />;
}
