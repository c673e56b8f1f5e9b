/**
 * The device usage CSV, streamed page by page: the scope's devices in keyset pages of 500 (merchant, venue,
 * device), each page's usage asked for those devices only, written as the page arrives; then the devices with
 * usage that the list leaves out (moved to another venue, or an employee's devices); the 合计 line is the sum of
 * the rows written. No array of every row is held, so a large scope streams with little memory. `deviceUsageCsvOf`
 * also says how many rows it will write before the first one (a count of the list, and the devices left out asked
 * first), so the download can show a true progress.
 */
import { daysBetween, type DeviceUsageRow } from '../../../src/domain/reports.schema';
import type { Db } from '../../db/client';
import { deviceRow, USAGE_KEYS, utilisation, type Raw } from './reports.build';
import { csvHeader, csvRow, csvTotals, type Cell } from './reports.csv';
import type { ReportScope } from './reports.source';
import { deviceListCount, deviceListPage, devicesById, deviceUsageAgg, num, rowsOf } from './reports.sql';

export const CSV_PAGE = 500;

/** Usage per device for the scope's device filter. */
async function usageByDevice(db: Db, s: ReportScope): Promise<Map<number, Raw>> {
  const agg = await rowsOf<Raw>(db, deviceUsageAgg(s));
  return new Map(agg.filter((r) => r.g === 'd').map((r) => [Number(r.k), r]));
}

const order = (a: DeviceUsageRow, b: DeviceUsageRow) =>
  a.merchant_id - b.merchant_id ||
  (a.venue_id ?? 2 ** 31) - (b.venue_id ?? 2 ** 31) ||
  a.device_id - b.device_id;

/** The CSV's data rows (header and 合计 line not counted) and its records, the usage left out asked once. */
export async function deviceUsageCsvOf(
  db: Db,
  s: ReportScope,
  pageSize = CSV_PAGE,
): Promise<{ rows: number; records: AsyncGenerator<Cell[]> }> {
  const unlisted = await usageByDevice(db, { ...s, devices: { unlisted: true } });
  const [listed] = s.operatorId === null ? await rowsOf<{ n: unknown }>(db, deviceListCount(s)) : [];
  return { rows: num(listed?.n) + unlisted.size, records: deviceUsageCsv(db, s, pageSize, unlisted) };
}

export async function* deviceUsageCsv(
  db: Db,
  s: ReportScope,
  pageSize = CSV_PAGE,
  unlistedUsage?: Map<number, Raw>,
): AsyncGenerator<Cell[]> {
  const days = daysBetween(s.from, s.to);
  const sums = { sessions: 0, minutes: 0, revenue_fen: 0, refund_fen: 0 };
  let devices = 0;
  const row = (r: DeviceUsageRow): Cell[] => {
    for (const k of USAGE_KEYS) sums[k] += r[k];
    devices++;
    return csvRow('device-usage', r);
  };
  yield csvHeader('device-usage');
  // An employee's figures list only the devices they took orders on (all "unlisted" below).
  let after: number[] | null = null;
  while (s.operatorId === null) {
    const page: Raw[] = await rowsOf<Raw>(db, deviceListPage(s, after, pageSize));
    if (page.length === 0) break;
    const usage = await usageByDevice(db, { ...s, devices: { ids: page.map((r) => num(r.device_id)) } });
    for (const r of page) yield row(deviceRow(r, usage.get(num(r.device_id)), days));
    const last: Raw = page.at(-1)!;
    after = [
      num(last.merchant_id),
      last.venue_id === null ? 2147483647 : num(last.venue_id),
      num(last.device_id),
    ];
    if (page.length < pageSize) break;
  }
  const unlisted = unlistedUsage ?? (await usageByDevice(db, { ...s, devices: { unlisted: true } }));
  if (unlisted.size > 0) {
    const named = await rowsOf<Raw>(db, devicesById([...unlisted.keys()]));
    const rows = named.map((r) => deviceRow(r, unlisted.get(num(r.device_id)), days)).sort(order);
    for (const r of rows) yield row(r);
  }
  yield csvTotals('device-usage', {
    devices,
    ...sums,
    utilisation_bp: utilisation(sums.minutes, devices, days),
  });
}
