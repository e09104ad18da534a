// A uPlot time-series chart that follows its container's width. The figures are also given as text beside it.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Line {
  label: string;
  values: number[];
  color: string;
  format?: (v: number) => string;
}

export function Chart({ label, times, lines, height = 180, bars = false }: { label: string; times: number[]; lines: Line[]; height?: number; bars?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [{}, { size: 60, values: (_u, ticks) => ticks.map((v) => (lines[0]?.format ? lines[0].format(v) : String(v))) }],
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
