/**
 * Reports (`/backend/reports/...`) and daily figures (`/backend/daily/...`): the query schemas the server validates
 * with and the answers the screens read. Days are local days in the server's `TZ`; money is integer fen; a report's
 * totals equal the sum of its rows (docs/reports.md).
 */
import { z } from 'zod';
import { QueryIdSchema } from './api';

export const REPORT_KINDS = ['device-usage', 'recharge', 'cash', 'consumption'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const DAILY_KINDS = ['recharge', 'cash'] as const;
export type DailyKind = (typeof DAILY_KINDS)[number];

export const REPORT_TITLES: Record<ReportKind, string> = {
  'device-usage': '设备使用报表',
  recharge: '充值报表',
  cash: '现金报表',
  consumption: '消费报表',
};

/**
 * The header of a CSV answer that says how many data rows follow (the header line and the 合计 line not counted),
 * so that a download can show "n / total rows" as they arrive.
 */
export const CSV_ROWS_HEADER = 'x-report-rows';

/** The longest range a report covers: a year (a leap year included). */
export const MAX_REPORT_DAYS = 366;

const DATE_MESSAGE = '日期格式应为 YYYY-MM-DD';
/** A calendar day `YYYY-MM-DD` that exists (no 2026-02-30). */
export const DaySchema = z
  .string(DATE_MESSAGE)
  .regex(/^\d{4}-\d{2}-\d{2}$/, DATE_MESSAGE)
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s && s >= '2000-01-01';
  }, '日期不存在');

/** Whole days from `from` to `to`, both included (UTC arithmetic on calendar days). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/** `day` moved by `n` calendar days. */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

const Filters = {
  venue_id: QueryIdSchema.optional(),
  /** Level 1 only: one merchant (others are scoped to their own whatever they send). */
  merchant_id: QueryIdSchema.optional(),
  format: z.enum(['json', 'csv'], 'format 只能是 json 或 csv').default('json'),
};

/** `GET /backend/reports/<kind>?from=&to=&venue_id=&merchant_id=&format=` (from/to default to today). */
export const ReportQuerySchema = z
  .object({ from: DaySchema.optional(), to: DaySchema.optional(), ...Filters })
  .refine((q) => !q.from || !q.to || q.from <= q.to, {
    message: '开始日期不能晚于结束日期',
    path: ['to'],
  })
  .refine((q) => !q.from || !q.to || daysBetween(q.from, q.to) <= MAX_REPORT_DAYS, {
    message: `日期范围最长 ${MAX_REPORT_DAYS} 天`,
    path: ['from'],
  });
export type ReportQuery = z.input<typeof ReportQuerySchema>;

/** `GET /backend/daily/<kind>?date=&venue_id=&merchant_id=&format=` (date defaults to today). */
export const DailyQuerySchema = z.object({ date: DaySchema.optional(), ...Filters });
export type DailyQuery = z.input<typeof DailyQuerySchema>;

export type PayMethod = 'wallet' | 'wechat' | 'cash';
export const METHOD_LABELS: Record<PayMethod, string> = { wallet: '余额', wechat: '微信', cash: '现金' };

// ---------------------------------------------------------------- answers

export interface ReportAnswer<T, D, R> {
  report: ReportKind;
  /** The range, local days in `tz`, both included. */
  from: string;
  to: string;
  /** The server's local day now (presets are computed from it). */
  today: string;
  tz: string;
  merchant_id: number | null;
  venue_id: number | null;
  /** Sums of `rows` (utilisation: the ratio of the summed minutes). */
  totals: T;
  /** Every day of the range, zeros included: the chart's data. */
  days: D[];
  rows: R[];
}

// Device usage: per device.
export interface DeviceUsageFigures {
  sessions: number;
  /** Minutes used (a stopped session counts the time it ran), each session rounded to the minute. */
  minutes: number;
  /** Consumption paid on the device, net of refunds. */
  revenue_fen: number;
  refund_fen: number;
}
export interface DeviceUsageRow extends DeviceUsageFigures {
  device_id: number;
  device_name: string;
  serial: string;
  venue_id: number | null;
  venue_name: string;
  merchant_id: number;
  merchant_name: string;
  /** Minutes used / minutes in the range, in basis points (10000 = always busy). */
  utilisation_bp: number;
}
export interface DeviceUsageTotals extends DeviceUsageFigures {
  devices: number;
  utilisation_bp: number;
}
export interface DeviceUsageDay extends DeviceUsageFigures {
  date: string;
}
export type DeviceUsageReport = ReportAnswer<DeviceUsageTotals, DeviceUsageDay, DeviceUsageRow>;

// Recharge: per method.
export interface RechargeFigures {
  count: number;
  /** What members paid. */
  paid_fen: number;
  /** Bonus credited on top (not money). */
  bonus_fen: number;
  refund_fen: number;
  /** paid - refund. */
  net_fen: number;
}
export interface RechargeRow extends RechargeFigures {
  method: 'wechat' | 'cash';
}
export interface RechargeDay extends RechargeFigures {
  date: string;
  /** Net paid by WeChat and in cash that day. */
  wechat_fen: number;
  cash_fen: number;
}
export type RechargeReport = ReportAnswer<RechargeFigures, RechargeDay, RechargeRow>;

// Cash: per employee and day.
export interface CashFigures {
  recharge_count: number;
  recharge_fen: number;
  sale_count: number;
  sale_fen: number;
  /** Cash handed back (a cash sale stopped early). */
  refund_fen: number;
  /** recharge + sale - refund: the cash the employee should hold. */
  net_fen: number;
}
export interface CashRow extends CashFigures {
  date: string;
  /** The staff account that took the cash (null only for orders recorded without one). */
  account_id: number | null;
  account_name: string;
  merchant_id: number;
  merchant_name: string;
}
export interface CashDay extends CashFigures {
  date: string;
}
export type CashReport = ReportAnswer<CashFigures, CashDay, CashRow>;

// Consumption: per venue and method.
export interface ConsumptionFigures {
  count: number;
  amount_fen: number;
  /** Part of amount_fen paid from wallet bonus. */
  bonus_fen: number;
  refund_fen: number;
  /** amount - refund. */
  net_fen: number;
}
export interface ConsumptionRow extends ConsumptionFigures {
  venue_id: number | null;
  venue_name: string;
  merchant_id: number;
  merchant_name: string;
  method: PayMethod;
}
export interface ConsumptionDay extends ConsumptionFigures {
  date: string;
  /** Net by method that day. */
  wallet_fen: number;
  wechat_fen: number;
  cash_fen: number;
}
export type ConsumptionReport = ReportAnswer<ConsumptionFigures, ConsumptionDay, ConsumptionRow>;

export interface ReportAnswers {
  'device-usage': DeviceUsageReport;
  recharge: RechargeReport;
  cash: CashReport;
  consumption: ConsumptionReport;
}
export type AnyReport = ReportAnswers[ReportKind];
