/**
 * One screen for every report and daily figure: filters (kept in the address, so a reload shows the same
 * report), totals, the chart by day (uPlot, loaded lazily), the day table beside it, the rows table and the CSV
 * export. The figures are the server's (docs/reports.md); the screen only formats them.
 */
import { lazy, Suspense, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { loadMe } from '../../../app/staff-features';
import { useRequest } from '../../../app/use-request';
import type { ReportAnswers, ReportKind } from '../../../domain/reports.schema';
import type { RouteDef } from '../../../domain/routes';
import { reportPath, reportsApi } from '../../../http/reports-api';
import { ErrorState, Loading } from '../../../ui/states';
import { StaffPage } from '../../shared/staff-page';
import { CsvExport } from './csv-export';
import { REPORT_CONFIG, type KindConfig } from '../report-config';
import { ReportFilterBar, type ReportFilters } from './report-filters';
import { ReportTable } from './report-table';

const ReportChart = lazy(() => import('./report-chart'));

interface Params extends ReportFilters {
  kind: ReportKind;
  daily: boolean;
}

function load(p: Params): Promise<ReportAnswers[ReportKind]> {
  const filters = { venue_id: p.venue_id, merchant_id: p.merchant_id };
  if (p.daily && (p.kind === 'recharge' || p.kind === 'cash'))
    return reportsApi.daily(p.kind, { date: p.date, ...filters });
  return reportsApi.report(p.kind, { from: p.from, to: p.to, ...filters });
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const ID = /^[1-9]\d{0,9}$/;
function filtersOf(search: string): ReportFilters {
  const s = new URLSearchParams(search);
  const day = (k: string) => (DAY.test(s.get(k) ?? '') ? (s.get(k) as string) : undefined);
  const id = (k: string) => (ID.test(s.get(k) ?? '') ? Number(s.get(k)) : undefined);
  return {
    from: day('from'),
    to: day('to'),
    date: day('date'),
    venue_id: id('venue_id'),
    merchant_id: id('merchant_id'),
  };
}
function searchOf(f: ReportFilters): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined) s.set(k, String(v));
  return s.toString();
}

const loadMerchants = async (isAdmin: boolean) => (isAdmin ? reportsApi.merchants() : []);
const loadVenues = async (p: { can: boolean; merchant_id: number | undefined }) =>
  p.can ? reportsApi.venues(p.merchant_id) : [];

function Body({ kind, report }: { kind: ReportKind; report: ReportAnswers[ReportKind] }) {
  const cfg = REPORT_CONFIG[kind] as unknown as KindConfig<'recharge'>;
  const r = report as ReportAnswers['recharge'];
  return (
    <>
      <section className="mx-4 mt-3 grid grid-cols-2 gap-2" data-testid="report-totals">
        {cfg.totals.map((t, i) => (
          <div key={t.label} className={`rounded-box bg-base-100 px-3 py-2 ${i === 0 ? 'col-span-2' : ''}`}>
            <p className="text-xs text-base-content/60">{t.label}</p>
            <p className={`font-semibold tabular-nums ${i === 0 ? 'text-2xl' : 'text-base'}`}>
              {t.value(r.totals)}
            </p>
          </div>
        ))}
      </section>
      {r.days.length > 1 && (
        <section className="mx-4 mt-3 rounded-box bg-base-100 p-2">
          <Suspense fallback={<Loading label="图表加载中…" />}>
            <ReportChart
              labels={r.days.map((d) => d.date.slice(5))}
              series={cfg.series.map((s) => ({
                label: s.label,
                color: s.color,
                values: r.days.map(s.value),
              }))}
              money={cfg.money}
            />
          </Suspense>
        </section>
      )}
      <ReportTable
        title={cfg.rowsTitle}
        columns={cfg.rowColumns}
        rows={r.rows}
        totals={r.rows.length ? (r.totals as never) : undefined}
        testId="report-rows"
      />
      {r.days.length > 1 && (
        <ReportTable title="按日" columns={cfg.dayColumns} rows={r.days} testId="report-days" />
      )}
    </>
  );
}

export function ReportScreen(props: {
  route: RouteDef;
  kind: ReportKind;
  daily: boolean;
  description: string;
}) {
  const { kind, daily } = props;
  const [location, navigate] = useLocation();
  const filters = filtersOf(useSearch());
  const me = useRequest(loadMe);
  const user = me.data?.user;
  const merchants = useRequest(loadMerchants, user?.level === 1);
  const venues = useRequest(loadVenues, {
    can: !!me.data?.features.includes('merchant.venues'),
    merchant_id: filters.merchant_id,
  });
  const report = useRequest(load, { kind, daily, ...filters });
  const data = report.data;
  // The server's today survives a reload of the figures, so the presets stay usable while the next range loads.
  const [today, setToday] = useState<string>();
  if (data && data.today !== today) setToday(data.today);
  const shown = today && {
    from: data?.from ?? filters.from ?? filters.date ?? today,
    to: data?.to ?? filters.to ?? filters.date ?? today,
    today,
  };
  const setFilters = (next: ReportFilters) => navigate(`${location}?${searchOf(next)}`, { replace: true });
  const csvPath = data
    ? reportPath(
        kind,
        {
          ...(daily ? { date: data.from } : { from: data.from, to: data.to }),
          venue_id: data.venue_id ?? undefined,
          merchant_id: data.merchant_id ?? undefined,
          format: 'csv',
        },
        daily,
      )
    : '';
  return (
    <StaffPage route={props.route} description={props.description}>
      <ReportFilterBar
        daily={daily}
        value={filters}
        shown={shown || undefined}
        venues={venues.data}
        admin={user?.level === 1}
        merchants={merchants.data}
        merchantsFailed={!!merchants.error}
        onChange={setFilters}
      />
      <div className="flex items-center justify-between px-4 pt-2 text-xs text-base-content/60">
        <span data-testid="report-range">
          {data ? (data.from === data.to ? data.from : `${data.from} 至 ${data.to}`) : ' '}
        </span>
        <CsvExport path={csvPath} disabled={!data} />
      </div>
      {report.error ? (
        <ErrorState message={report.error.message} onRetry={report.canRetry ? report.retry : undefined} />
      ) : !data || report.loading ? (
        <Loading />
      ) : (
        <Body kind={kind} report={data} />
      )}
      <div className="h-6" />
    </StaffPage>
  );
}
