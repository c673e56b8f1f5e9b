/**
 * CSV exports of the reports: UTF-8 with a byte-order mark (so Excel opens the Chinese), one header line, the rows
 * of the report and a 合计 line; money in yuan with two decimals. Quoting and escaping are csv-stringify's; the
 * answer is a stream written with back-pressure.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { fenToYuan } from '../../../src/domain/money';
import {
  METHOD_LABELS,
  REPORT_TITLES,
  type AnyReport,
  type PayMethod,
  type ReportKind,
} from '../../../src/domain/reports.schema';

export type Cell = string | number;
type Column = [header: string, value: (r: Record<string, unknown>) => Cell];

const yuan =
  (key: string): Column[1] =>
  (r) =>
    fenToYuan(Number(r[key] ?? 0));
const int =
  (key: string): Column[1] =>
  (r) =>
    Number(r[key] ?? 0);
const text =
  (key: string): Column[1] =>
  (r) =>
    r[key] === undefined || r[key] === null ? '' : String(r[key]);
const percent: Column[1] = (r) => {
  const bp = Number(r.utilisation_bp ?? 0);
  return `${Math.trunc(bp / 100)}.${(bp % 100).toString().padStart(2, '0')}%`;
};
const method: Column[1] = (r) => (r.method ? METHOD_LABELS[r.method as PayMethod] : '');

const COLUMNS: Record<ReportKind, Column[]> = {
  'device-usage': [
    ['商户', text('merchant_name')],
    ['场地', text('venue_name')],
    ['设备', text('device_name')],
    ['编号', text('serial')],
    ['使用次数', int('sessions')],
    ['使用分钟', int('minutes')],
    ['收入(元)', yuan('revenue_fen')],
    ['退款(元)', yuan('refund_fen')],
    ['利用率', percent],
  ],
  recharge: [
    ['方式', method],
    ['笔数', int('count')],
    ['实付(元)', yuan('paid_fen')],
    ['赠送(元)', yuan('bonus_fen')],
    ['退款(元)', yuan('refund_fen')],
    ['净额(元)', yuan('net_fen')],
  ],
  cash: [
    ['日期', text('date')],
    ['商户', text('merchant_name')],
    ['经办人', text('account_name')],
    ['现金充值笔数', int('recharge_count')],
    ['现金充值(元)', yuan('recharge_fen')],
    ['现金消费笔数', int('sale_count')],
    ['现金消费(元)', yuan('sale_fen')],
    ['退还现金(元)', yuan('refund_fen')],
    ['应有现金(元)', yuan('net_fen')],
  ],
  consumption: [
    ['商户', text('merchant_name')],
    ['场地', text('venue_name')],
    ['方式', method],
    ['笔数', int('count')],
    ['金额(元)', yuan('amount_fen')],
    ['其中赠送(元)', yuan('bonus_fen')],
    ['退款(元)', yuan('refund_fen')],
    ['净额(元)', yuan('net_fen')],
  ],
};

/** `充值报表_2026-11-01_2026-11-07.csv` (one day: the day once), and its ASCII fallback. */
export function csvFileName(kind: ReportKind, from: string, to: string, daily = false) {
  const range = from === to ? from : `${from}_${to}`;
  const title = daily ? REPORT_TITLES[kind].replace('报表', '日报') : REPORT_TITLES[kind];
  return { utf8: `${title}_${range}.csv`, ascii: `${daily ? 'daily' : 'report'}-${kind}_${range}.csv` };
}

export function contentDisposition(name: { utf8: string; ascii: string }): string {
  return `attachment; filename="${name.ascii}"; filename*=UTF-8''${encodeURIComponent(name.utf8)}`;
}

export const csvHeader = (kind: ReportKind): Cell[] => COLUMNS[kind].map(([h]) => h);
export const csvRow = (kind: ReportKind, row: object): Cell[] =>
  COLUMNS[kind].map(([, v]) => v(row as Record<string, unknown>));

/** The 合计 line: first column says so, totals under their columns, text columns (names, dates) empty. */
export const csvTotals = (kind: ReportKind, totals: object): Cell[] =>
  COLUMNS[kind].map(([, v], i) => {
    if (i === 0) return '合计';
    const value = v(totals as Record<string, unknown>);
    return typeof value === 'number' || /^-?\d+\.\d{2}%?$/.test(value) ? value : '';
  });

/** A built report as CSV records: header, rows, and the 合计 line. */
export function* csvRecords(kind: ReportKind, report: Pick<AnyReport, 'rows' | 'totals'>): Generator<Cell[]> {
  yield csvHeader(kind);
  for (const row of report.rows) yield csvRow(kind, row);
  yield csvTotals(kind, report.totals);
}

/** A web stream of the CSV bytes (BOM first), fed from the records (sync or async) with back-pressure. */
export function csvStream(records: Iterable<Cell[]> | AsyncIterable<Cell[]>): ReadableStream<Uint8Array> {
  const out = stringify({ bom: true, record_delimiter: '\r\n' });
  void (async () => {
    try {
      for await (const record of records) {
        if (!out.write(record)) await new Promise((ok) => out.once('drain', ok));
      }
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return Readable.toWeb(out) as unknown as ReadableStream<Uint8Array>;
}
