/**
 * Turns the aggregated rows of reports.sql.ts into the answers: every day of the range present (zeros included),
 * totals summed from the rows, utilisation derived from the minutes.
 */
import {
  addDays,
  daysBetween,
  type CashDay,
  type CashFigures,
  type CashRow,
  type ConsumptionDay,
  type ConsumptionFigures,
  type ConsumptionRow,
  type DeviceUsageDay,
  type DeviceUsageRow,
  type PayMethod,
  type RechargeDay,
  type RechargeFigures,
  type RechargeRow,
  type ReportAnswers,
  type ReportKind,
} from '../../../src/domain/reports.schema';
import type { Db } from '../../db/client';
import {
  cashAgg,
  consumptionAgg,
  deviceList,
  devicesById,
  deviceUsageAgg,
  num,
  rechargeAgg,
  rowsOf,
  type ReportScope,
} from './reports.sql';

export type Raw = Record<string, unknown>;

/** Sums the given numeric fields over rows. */
export function sumOf<K extends string>(rows: Record<K, number>[], keys: readonly K[]): Record<K, number> {
  const out = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  for (const r of rows) for (const k of keys) out[k] += r[k];
  return out;
}

/** One entry per day of the range, from a map of the days that have figures. */
function everyDay<D>(s: ReportScope, found: Map<string, D>, empty: (date: string) => D): D[] {
  const n = daysBetween(s.from, s.to);
  return Array.from({ length: n }, (_, i) => {
    const date = addDays(s.from, i);
    return found.get(date) ?? empty(date);
  });
}

const pick = (r: Raw, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, num(r[k])]));

export const USAGE_KEYS = ['sessions', 'minutes', 'revenue_fen', 'refund_fen'] as const;
/** Basis points of `minutes` over `slots` whole days of `devices` devices (floor). */
export const utilisation = (minutes: number, devices: number, days: number) =>
  devices === 0 ? 0 : Math.floor((minutes * 10_000) / (devices * days * 1440));

export const deviceRow = (r: Raw, usage: Raw | undefined, days: number): DeviceUsageRow => ({
  device_id: num(r.device_id),
  device_name: String(r.device_name),
  serial: String(r.serial),
  venue_id: r.venue_id === null ? null : num(r.venue_id),
  venue_name: String(r.venue_name),
  merchant_id: num(r.merchant_id),
  merchant_name: String(r.merchant_name),
  ...(pick(usage ?? {}, USAGE_KEYS) as Record<(typeof USAGE_KEYS)[number], number>),
  utilisation_bp: utilisation(num(usage?.minutes), 1, days),
});

async function deviceUsage(db: Db, s: ReportScope) {
  const days = daysBetween(s.from, s.to);
  const agg = await rowsOf<Raw>(db, deviceUsageAgg(s));
  const usage = new Map(agg.filter((r) => r.g === 'd').map((r) => [Number(r.k), r]));
  // Every device of the scope; an employee's figures list only the devices they took orders on.
  const listed = s.operatorId === null ? await rowsOf<Raw>(db, deviceList(s)) : [];
  const seen = new Set(listed.map((r) => num(r.device_id)));
  const missing = [...usage.keys()].filter((id) => !seen.has(id));
  const all = missing.length ? [...listed, ...(await rowsOf<Raw>(db, devicesById(missing)))] : listed;
  const rows = all
    .map((r) => deviceRow(r, usage.get(num(r.device_id)), days))
    .sort(
      (a, b) =>
        a.merchant_id - b.merchant_id ||
        (a.venue_id ?? 2 ** 31) - (b.venue_id ?? 2 ** 31) ||
        a.device_id - b.device_id,
    );
  const found = new Map(
    agg.filter((r) => r.g === 'x').map((r) => [String(r.k), { date: String(r.k), ...pick(r, USAGE_KEYS) }]),
  );
  const sums = sumOf(rows, USAGE_KEYS);
  return {
    totals: { devices: rows.length, ...sums, utilisation_bp: utilisation(sums.minutes, rows.length, days) },
    days: everyDay(s, found as Map<string, DeviceUsageDay>, (date) => ({
      date,
      sessions: 0,
      minutes: 0,
      revenue_fen: 0,
      refund_fen: 0,
    })),
    rows,
  };
}

const RECHARGE_KEYS = ['count', 'paid_fen', 'bonus_fen', 'refund_fen', 'net_fen'] as const;
const rechargeFigures = (r: Raw): RechargeFigures => {
  const paid = num(r.paid_fen);
  const refund = num(r.refund_fen);
  return {
    count: num(r.count),
    paid_fen: paid,
    bonus_fen: num(r.bonus_fen),
    refund_fen: refund,
    net_fen: paid - refund,
  };
};

async function recharge(db: Db, s: ReportScope) {
  const agg = await rowsOf<Raw>(db, rechargeAgg(s));
  const rows: RechargeRow[] = (['wechat', 'cash'] as const).map((method) => ({
    method,
    ...sumOf(agg.filter((r) => r.method === method).map(rechargeFigures), RECHARGE_KEYS),
  }));
  const found = new Map<string, RechargeDay>();
  for (const r of agg) {
    const date = String(r.date);
    const f = rechargeFigures(r);
    const d = found.get(date) ?? { date, ...sumOf([], RECHARGE_KEYS), wechat_fen: 0, cash_fen: 0 };
    for (const k of RECHARGE_KEYS) d[k] += f[k];
    if (r.method === 'wechat') d.wechat_fen += f.net_fen;
    if (r.method === 'cash') d.cash_fen += f.net_fen;
    found.set(date, d);
  }
  return {
    totals: sumOf(rows, RECHARGE_KEYS),
    days: everyDay(s, found, (date) => ({ date, ...sumOf([], RECHARGE_KEYS), wechat_fen: 0, cash_fen: 0 })),
    rows,
  };
}

const CASH_KEYS = [
  'recharge_count',
  'recharge_fen',
  'sale_count',
  'sale_fen',
  'refund_fen',
  'net_fen',
] as const;
const cashFigures = (r: Raw): CashFigures => {
  const f = pick(r, CASH_KEYS) as unknown as CashFigures;
  return { ...f, net_fen: f.recharge_fen + f.sale_fen - f.refund_fen };
};

async function cash(db: Db, s: ReportScope) {
  const rows = (await rowsOf<Raw>(db, cashAgg(s))).map((r): CashRow => ({
    date: String(r.date),
    account_id: r.account_id === null ? null : num(r.account_id),
    account_name: String(r.account_name),
    merchant_id: num(r.merchant_id),
    merchant_name: String(r.merchant_name),
    ...cashFigures(r),
  }));
  const found = new Map<string, CashDay>();
  for (const r of rows) {
    const d = found.get(r.date) ?? { date: r.date, ...sumOf([], CASH_KEYS) };
    for (const k of CASH_KEYS) d[k] += r[k];
    found.set(r.date, d);
  }
  return {
    totals: sumOf(rows, CASH_KEYS),
    days: everyDay(s, found, (date) => ({ date, ...sumOf([], CASH_KEYS) })),
    rows,
  };
}

const CONSUMPTION_KEYS = ['count', 'amount_fen', 'bonus_fen', 'refund_fen', 'net_fen'] as const;
const consumptionFigures = (r: Raw): ConsumptionFigures => {
  const amount = num(r.amount_fen);
  const refund = num(r.refund_fen);
  return {
    count: num(r.count),
    amount_fen: amount,
    bonus_fen: num(r.bonus_fen),
    refund_fen: refund,
    net_fen: amount - refund,
  };
};

async function consumption(db: Db, s: ReportScope) {
  const agg = await rowsOf<Raw>(db, consumptionAgg(s));
  const byRow = new Map<string, ConsumptionRow>();
  for (const r of agg) {
    const key = `${String(r.merchant_id)}/${String(r.venue_id)}/${String(r.method)}`;
    const f = consumptionFigures(r);
    const row = byRow.get(key) ?? {
      venue_id: r.venue_id === null ? null : num(r.venue_id),
      venue_name: String(r.venue_name),
      merchant_id: num(r.merchant_id),
      merchant_name: String(r.merchant_name),
      method: r.method as PayMethod,
      ...sumOf([], CONSUMPTION_KEYS),
    };
    for (const k of CONSUMPTION_KEYS) row[k] += f[k];
    byRow.set(key, row);
  }
  // The query orders by merchant, venue, method: the map keeps that order.
  const rows = [...byRow.values()];
  const zero = (date: string): ConsumptionDay => ({
    date,
    ...sumOf([], CONSUMPTION_KEYS),
    wallet_fen: 0,
    wechat_fen: 0,
    cash_fen: 0,
  });
  const found = new Map<string, ConsumptionDay>();
  for (const r of agg) {
    const date = String(r.date);
    const f = consumptionFigures(r);
    const d = found.get(date) ?? zero(date);
    for (const k of CONSUMPTION_KEYS) d[k] += f[k];
    d[`${r.method as PayMethod}_fen`] += f.net_fen;
    found.set(date, d);
  }
  return { totals: sumOf(rows, CONSUMPTION_KEYS), days: everyDay(s, found, zero), rows };
}

type Body<K extends ReportKind> = Pick<ReportAnswers[K], 'totals' | 'days' | 'rows'>;
const BUILDERS: { [K in ReportKind]: (db: Db, s: ReportScope) => Promise<Body<K>> } = {
  'device-usage': deviceUsage,
  recharge,
  cash,
  consumption,
};

export function buildReport<K extends ReportKind>(kind: K, db: Db, s: ReportScope): Promise<Body<K>> {
  return BUILDERS[kind](db, s);
}
