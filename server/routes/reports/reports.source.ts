/**
 * Where the reports' figures come from: one row per counted order (money) or device use (usage) on the days
 * computed live from `orders` and `device_sessions`, and the same rows already summed per day from the daily
 * rollups (`report_money_days`, `report_device_days`) on the days rolled up (docs/reports.md, docs/decisions.md
 * D21). The rollup job inserts the sums of exactly the live rows below, so a rolled day and a live day agree by
 * construction. The day of an order is the local day (TZ) of the moment it was paid; its refunds count on that day.
 */
import { sql, type SQL } from 'drizzle-orm';

export interface ReportScope {
  /** null: every merchant (level 1 without a merchant filter). */
  merchantId: number | null;
  venueId: number | null;
  /** Only the orders this staff account took (employees). */
  operatorId: number | null;
  from: string;
  to: string;
  tz: string;
  now: Date;
  /** Which days come from the rollups and which from the orders (reports.split.ts). Absent: all from the orders. */
  split?: { rolled: DayRange[]; live: DayRange[] };
  /** Device usage for some devices only: these ids, or those the scope's device list leaves out (CSV pages). */
  devices?: { ids: number[] } | { unlisted: true };
}

/** Local days `from`..`to`, both included. */
export interface DayRange {
  from: string;
  to: string;
}

export const liveRanges = (s: ReportScope): DayRange[] => s.split?.live ?? [{ from: s.from, to: s.to }];
const rolledRanges = (s: ReportScope): DayRange[] => s.split?.rolled ?? [];

/** Orders that took money: pending, closed and failed-before-payment orders never count. */
const COUNTED = sql`o.status in ('paid', 'started', 'completed', 'refunded')`;
export const PAID_AT = sql`coalesce(o.paid_at, o.created_at)`;

export const localDay = (s: Pick<ReportScope, 'tz'>) =>
  sql`to_char((${PAID_AT} at time zone ${s.tz})::date, 'YYYY-MM-DD')`;

/** The instant a local day starts (`plusDays` later). */
export const midnight = (day: string, tz: string, plusDays = 0) =>
  sql`((${day}::date + ${plusDays}::int)::timestamp at time zone ${tz})`;

/** A moment inside one of the ranges of local days (none: false); each range can use the paid-moment index. */
function inRanges(moment: SQL, ranges: DayRange[], tz: string): SQL {
  if (ranges.length === 0) return sql`false`;
  const each = ranges.map(
    (r) => sql`(${moment} >= ${midnight(r.from, tz)} and ${moment} < ${midnight(r.to, tz, 1)})`,
  );
  return sql`(${sql.join(each, sql` or `)})`;
}

/** A rollup day inside one of the ranges (none: false). */
function dayIn(ranges: DayRange[]): SQL {
  if (ranges.length === 0) return sql`false`;
  const each = ranges.map((r) => sql`(r.day between ${r.from}::date and ${r.to}::date)`);
  return sql`(${sql.join(each, sql` or `)})`;
}

/** The scope's merchant, venue and staff account on a table alias (`o` orders, `r` rollups). */
function scoped(s: ReportScope, alias: 'o' | 'r'): SQL[] {
  const t = sql.raw(alias);
  const parts: SQL[] = [];
  if (s.merchantId !== null) parts.push(sql`${t}.merchant_id = ${s.merchantId}`);
  if (s.venueId !== null) parts.push(sql`${t}.venue_id = ${s.venueId}`);
  if (s.operatorId !== null) parts.push(sql`${t}.operator_account_id = ${s.operatorId}`);
  return parts;
}

/** What a money report selects: order kinds and, optionally, one method. */
export interface MoneyFilter {
  kinds: readonly ('recharge' | 'consume' | 'service')[];
  method?: 'cash';
}

function moneyWhere(f: MoneyFilter, alias: 'o' | 'r'): SQL {
  const t = sql.raw(alias);
  const kinds = sql`${t}.kind in (${sql.join(
    f.kinds.map((k) => sql`${k}`),
    sql`, `,
  )})`;
  return f.method ? sql`${kinds} and ${t}.method = ${f.method}` : kinds;
}

/** The live orders of the scope (optionally one day range instead of the live ones), with an extra condition. */
export function orderWhere(s: ReportScope, extra: SQL, ranges = liveRanges(s)): SQL {
  return sql.join([extra, COUNTED, inRanges(PAID_AT, ranges, s.tz), ...scoped(s, 'o')], sql` and `);
}

/** Money rows: day, merchant, venue, kind, method, staff account, count and sums; live orders and rolled days. */
export function moneyRows(s: ReportScope, f: MoneyFilter): SQL {
  const rolled = [sql`r.tz = ${s.tz}`, dayIn(rolledRanges(s)), moneyWhere(f, 'r'), ...scoped(s, 'r')];
  return sql`select ${localDay(s)} as date, o.merchant_id, o.venue_id, o.kind, o.method, o.operator_account_id,
      1 as count, o.amount_fen, o.bonus_fen, o.refunded_fen as refund_fen
    from orders o where ${orderWhere(s, moneyWhere(f, 'o'))}
    union all
    select to_char(r.day, 'YYYY-MM-DD'), r.merchant_id, r.venue_id, r.kind, r.method, r.operator_account_id,
      r.count, r.amount_fen, r.bonus_fen, r.refund_fen
    from report_money_days r where ${sql.join(rolled, sql` and `)}`;
}

/**
 * Minutes a session was used, rounded to the nearest minute: an ended session its booked minutes; a stopped or
 * failed one the time it ran; a running one the time so far. Sessions that never started count none. Once a
 * session is over (or past its end) the figure no longer depends on `now`: the rollup job rolls only such days.
 */
function usedMinutes(now: Date): SQL {
  const end = sql`coalesce(ds.ended_at, least(ds.ends_at, ${now.toISOString()}::timestamptz))`;
  const seconds = sql`least(ds.minutes * 60, greatest(0, extract(epoch from (${end} - ds.started_at))))`;
  return sql`case when ds.started_at is null then 0 when ds.status = 'ended' then ds.minutes
    else floor((${seconds} + 30) / 60)::int end`;
}

/**
 * How far a session's creation may lie from its order's payment: a paid order starts its session at once or is
 * refunded, so a week is a wide margin. It bounds the sessions joined (device_sessions_created_idx) instead of
 * hashing every session ever run; the join on order_id keeps the result exact.
 */
const SESSION_MARGIN = sql`interval '7 days'`;

/** The device filter of a page of device usage (none: true). */
function devicesWhere(s: ReportScope, col: SQL): SQL {
  const f = s.devices;
  if (!f) return sql`true`;
  if ('ids' in f) {
    if (f.ids.length === 0) return sql`false`;
    return sql`${col} in (${sql.join(
      f.ids.map((id) => sql`${id}`),
      sql`, `,
    )})`;
  }
  // An employee's list is empty: every device they used is "unlisted".
  if (s.operatorId !== null) return sql`true`;
  const listed = [sql`d.id = ${col}`];
  if (s.merchantId !== null) listed.push(sql`d.merchant_id = ${s.merchantId}`);
  if (s.venueId !== null) listed.push(sql`d.venue_id = ${s.venueId}`);
  return sql`not exists (select 1 from devices d where ${sql.join(listed, sql` and `)})`;
}

/** One row per device use on the live days (or the given ranges): who, where, which day, what it counts. */
export function deviceUseRows(s: ReportScope, ranges = liveRanges(s)): SQL {
  const first = ranges[0]?.from ?? s.from;
  const last = ranges.at(-1)?.to ?? s.to;
  const kinds = sql`o.kind in ('consume', 'service') and o.device_id is not null
    and ${devicesWhere(s, sql`o.device_id`)}`;
  return sql`select o.merchant_id, o.venue_id, o.device_id, o.operator_account_id,
      (${PAID_AT} at time zone ${s.tz})::date as day,
      (ds.started_at is not null)::int as sessions, ${usedMinutes(s.now)} as minutes,
      o.amount_fen - o.refunded_fen as revenue, o.refunded_fen as refund
    from orders o left join device_sessions ds on ds.order_id = o.id
      and ds.created_at >= ${midnight(first, s.tz)} - ${SESSION_MARGIN}
      and ds.created_at < ${midnight(last, s.tz, 1)} + ${SESSION_MARGIN}
    where ${orderWhere(s, kinds, ranges)}`;
}

/** Device use rows: day, device, sessions, minutes, revenue and refunds; live orders and rolled days. */
export function usageRows(s: ReportScope): SQL {
  const rolled = [
    sql`r.tz = ${s.tz}`,
    dayIn(rolledRanges(s)),
    devicesWhere(s, sql`r.device_id`),
    ...scoped(s, 'r'),
  ];
  return sql`select u.device_id, u.day, u.sessions, u.minutes, u.revenue, u.refund from (${deviceUseRows(s)}) u
    union all
    select r.device_id, r.day, r.sessions, r.minutes, r.revenue_fen, r.refund_fen
    from report_device_days r where ${sql.join(rolled, sql` and `)}`;
}
