// @vitest-environment node
import './user-dom';
/**
 * The report screens rendered against the real server in process (real app, real database with sample orders over
 * 40 days, the demo merchant's token), after the daily rollup has summed the closed days: each report shows the
 * totals the server computes for the same range, its rows and day tables; a preset changes the range asked for; the
 * CSV export downloads the file named after report and range.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// The DOM here has no canvas: the chart (uPlot) is drawn and looked at in Chromium by tests/e2e/reports.e2e.ts.
// Here it is replaced by the series it was given, so the test sees what the screen passes it.
vi.mock('../../src/screens/reports/parts/report-chart', () => ({
  default: (p: { labels: string[]; series: { label: string }[] }) => (
    <figure data-testid="report-chart">{`${p.labels.length} days: ${p.series.map((s) => s.label).join(', ')}`}</figure>
  ),
}));
import { seedSampleOrders } from '../../scripts/report-sample-data';
import { accounts } from '../../server/db/schema';
import { rollUpReports } from '../../server/services/report-rollup';
import { formatFen } from '../../src/domain/money';
import { addDays, type ReportAnswers } from '../../src/domain/reports.schema';
import { ROUTES } from '../../src/domain/routes';
import CashReportScreen from '../../src/screens/reports/cash';
import ConsumptionReportScreen from '../../src/screens/reports/consumption';
import DeviceUsageReportScreen from '../../src/screens/reports/device-usage';
import RechargeReportScreen from '../../src/screens/reports/recharge';
import { bearer } from '../server/test-app';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
let token: string;
/** Files the screen saved: the DOM would navigate to the blob on a download link's click, the browser saves it. */
const saved: string[] = [];
beforeAll(async () => {
  const anchor = (window as unknown as { HTMLAnchorElement: typeof HTMLAnchorElement }).HTMLAnchorElement;
  anchor.prototype.click = function (this: HTMLAnchorElement) {
    saved.push(this.download);
  };
  h = await startStaffHarness('merchant');
  const db = h.t.deps.db;
  const [employee] = await db.select().from(accounts).where(eq(accounts.username, 'employee'));
  await seedSampleOrders(db, { merchantId: 1, employeeId: employee!.id, orders: 600, days: 40, end: new Date(), tag: 'cmp' }); // prettier-ignore
  const rolled = await rollUpReports(db, h.t.deps.env.TZ, h.t.deps.now());
  expect(rolled.rolled.length).toBeGreaterThan(30);
  token = await h.t.login('merchant');
}, 120_000);
afterEach(cleanup);
afterAll(async () => {
  cleanup();
  await h?.close();
});

const SCREENS = [
  { kind: 'consumption', Screen: ConsumptionReportScreen, first: (r: ReportAnswers['consumption']) => formatFen(r.totals.net_fen) }, // prettier-ignore
  { kind: 'recharge', Screen: RechargeReportScreen, first: (r: ReportAnswers['recharge']) => formatFen(r.totals.net_fen) }, // prettier-ignore
  {
    kind: 'cash',
    Screen: CashReportScreen,
    first: (r: ReportAnswers['cash']) => formatFen(r.totals.net_fen),
  },
  { kind: 'device-usage', Screen: DeviceUsageReportScreen, first: () => '' },
] as const;

describe('report screens', () => {
  for (const { kind, Screen, first } of SCREENS) {
    it(`/reports/${kind}: the server's figures for the range, rows, days, a preset and the CSV`, async () => {
      const route = ROUTES.find((r) => r.path === `/reports/${kind}`)!;
      const { body: today } = await h.t.json<{ today: string }>('/backend/daily/recharge', bearer(token));
      const from = addDays(today.today, -29);
      window.history.pushState(null, '', `/reports/${kind}?from=${from}&to=${today.today}`);
      const { body } = await h.t.json<ReportAnswers[typeof kind]>(
        `/backend/reports/${kind}?from=${from}&to=${today.today}`,
        bearer(token),
      );
      h.requests.length = 0;
      render(<Screen route={route} params={{}} />);
      // The range shown is the one asked for: the figures on screen are its answer.
      await waitFor(
        () => expect(screen.getByTestId('report-range').textContent).toBe(`${from} 至 ${today.today}`),
        { timeout: 15_000 },
      );
      const expected = first(body as never);
      if (expected) expect(screen.getByTestId('report-totals').textContent).toContain(expected);
      expect((await screen.findByTestId('report-chart')).textContent).toMatch(/^30 days: /);
      const rows = within(screen.getByTestId('report-rows')).getAllByRole('row');
      expect(rows.length).toBeGreaterThan(body.rows.length); // header, rows, 合计
      expect(within(screen.getByTestId('report-days')).getAllByRole('row').length).toBe(31);

      h.requests.length = 0;
      fireEvent.click(screen.getByRole('button', { name: '近 7 天' }));
      await waitFor(() =>
        expect(h.requests.some((r) => r.includes(`from=${addDays(today.today, -6)}`))).toBe(true),
      );
      await waitFor(() =>
        expect(screen.getByTestId('report-range').textContent).toContain(addDays(today.today, -6)),
      );

      h.requests.length = 0;
      fireEvent.click(screen.getByRole('button', { name: '导出 CSV' }));
      await screen.findByText(
        new RegExp(`已导出 .*_${addDays(today.today, -6)}_${today.today}\\.csv`),
        {},
        { timeout: 10_000 },
      );
      expect(h.requests.some((r) => r.includes('format=csv'))).toBe(true);
      expect(saved.at(-1)).toMatch(new RegExp(`_${addDays(today.today, -6)}_${today.today}\\.csv$`));
      cleanup();
    }, 60_000);
  }
});
