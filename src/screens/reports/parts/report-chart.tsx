/**
 * The chart of a report: stacked bars by day, drawn by uPlot (docs/reports.md, "Charts": the smallest of the
 * candidates measured). This module is imported lazily by the report screens only, so uPlot is its own chunk and
 * never loads on the pay page or the staff shell.
 */
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  color: string;
  values: number[];
}

export interface ReportChartProps {
  /** One label per bar (MM-DD). */
  labels: string[];
  /** Bottom to top; each bar stacks the series' values of its day. */
  series: ChartSeries[];
  /** Values are fen: the axis shows yuan. */
  money: boolean;
  height?: number;
}

/** Cumulative sums, top first: drawing the tallest bar first and each lower stack over it makes a stacked bar. */
function stacked(series: ChartSeries[]): ChartSeries[] {
  let running: number[] = [];
  const out = series.map((s) => {
    running = s.values.map((v, i) => v + (running[i] ?? 0));
    return { ...s, values: running };
  });
  return out.reverse();
}

function options(props: ReportChartProps, width: number): uPlot.Options {
  const bars = uPlot.paths.bars!({ size: [0.7, 48], gap: 2 });
  const tick = (v: number) =>
    props.money ? (v >= 10_000 ? `${(v / 10_000).toFixed(1)}万` : `${v}`) : String(v);
  return {
    width,
    height: props.height ?? 200,
    padding: [8, 8, 0, 0],
    legend: { show: false },
    cursor: { show: false },
    scales: {
      x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
      // Yuan (or counts) from zero up, with a little headroom; an empty range still draws an axis.
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      {
        stroke: '#6b7280',
        grid: { show: false },
        size: 28,
        values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (props.labels[i] ?? '') : '')),
        font: '11px sans-serif',
      },
      {
        stroke: '#6b7280',
        size: 44,
        grid: { stroke: '#e5e7eb', width: 1 },
        values: (_u, splits) => splits.map((v) => tick(v)),
        font: '11px sans-serif',
      },
    ],
    series: [
      {},
      ...stacked(props.series).map((s) => ({
        label: s.label,
        fill: s.color,
        stroke: s.color,
        width: 0,
        paths: bars,
        points: { show: false },
        scale: 'y',
      })),
    ],
  };
}

function dataOf(props: ReportChartProps): uPlot.AlignedData {
  const scale = props.money ? 100 : 1;
  return [props.labels.map((_, i) => i), ...stacked(props.series).map((s) => s.values.map((v) => v / scale))];
}

export default function ReportChart(props: ReportChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const plot = new uPlot(options(props, el.clientWidth || 320), dataOf(props), el);
    const ro = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: props.height ?? 200 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [props]);
  return (
    <figure className="w-full" aria-label="按日图表" data-testid="report-chart">
      <div ref={box} className="w-full" />
      <figcaption className="flex flex-wrap gap-3 px-1 pt-1 text-xs text-base-content/70">
        {props.series.map((s) => (
          <span key={s.label} className="inline-flex items-center gap-1">
            <span className="inline-block size-2.5 rounded-sm" style={{ background: s.color }} />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
