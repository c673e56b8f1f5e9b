/**
 * The SQL of the reports: every figure is aggregated by PostgreSQL (PGlite and a server alike) from `orders` and
 * `device_sessions`; the day of an order is the local day (TZ) of the moment it was paid, and its refunds count on
 * that order's day (docs/reports.md). The range filter compares the paid moment with the local midnights of the
 * range, so it can use the `orders_merchant_paid_idx` expression index.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';

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
}

/** Orders that took money: pending, closed and failed-before-payment orders never count. */
const COUNTED = sql`o.status in ('paid', 'started', 'completed', 'refunded')`;
const PAID_AT = sql`coalesce(o.paid_at, o.created_at)`;

export const localDay = (s: ReportScope) =>
  sql`to_char((${PAID_AT} at time zone ${s.tz})::date, 'YYYY-MM-DD')`;

/** The orders of one kind inside the scope and the range. */
export function orderWhere(s: ReportScope, kind: 'recharge' | 'consume', extra?: SQL): SQL {
  const parts: SQL[] = [
    sql`o.kind = ${kind}`,
    COUNTED,
    sql`${PAID_AT} >= (${s.from}::date::timestamp at time zone ${s.tz})`,
    sql`${PAID_AT} < ((${s.to}::date + 1)::timestamp at time zone ${s.tz})`,
  ];
  if (s.merchantId !== null) parts.push(sql`o.merchant_id = ${s.merchantId}`);
  if (s.venueId !== null) parts.push(sql`o.venue_id = ${s.venueId}`);
  if (s.operatorId !== null) parts.push(sql`o.operator_account_id = ${s.operatorId}`);
  if (extra) parts.push(extra);
  return sql.join(parts, sql` and `);
}

/** Rows of a raw query on either driver (both answer `{ rows }`). */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  const res = (await db.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}

/** bigint/numeric sums come back as strings (pg) or numbers (PGlite): one conversion for both. */
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** The server's local day now. */
export async function todayIn(db: Db, tz: string, now: Date): Promise<string> {
  const [r] = await rowsOf<{ d: string }>(
    db,
    sql`select to_char((${now.toISOString()}::timestamptz at time zone ${tz})::date, 'YYYY-MM-DD') as d`,
  );
  return r!.d;
}

/**
 * Minutes a session was used, rounded to the nearest minute: an ended session its booked minutes; a stopped or
 * failed one the time it ran; a running one the time so far. Sessions that never started count none.
 */
function usedMinutes(s: ReportScope): SQL {
  const end = sql`coalesce(ds.ended_at, least(ds.ends_at, ${s.now.toISOString()}::timestamptz))`;
  const seconds = sql`least(ds.minutes * 60, greatest(0, extract(epoch from (${end} - ds.started_at))))`;
  return sql`case when ds.started_at is null then 0 when ds.status = 'ended' then ds.minutes
    else floor((${seconds} + 30) / 60)::int end`;
}

/** Device usage, per device (`byDay` false) or per local day (`byDay` true), from consume orders and sessions. */
export function deviceUsageAgg(s: ReportScope, byDay: boolean): SQL {
  const key = byDay ? sql`${localDay(s)}` : sql`o.device_id`;
  return sql`select ${key} as k,
      count(ds.started_at)::int8 as sessions,
      coalesce(sum(${usedMinutes(s)}), 0)::int8 as minutes,
      coalesce(sum(o.amount_fen - o.refunded_fen), 0)::int8 as revenue_fen,
      coalesce(sum(o.refunded_fen), 0)::int8 as refund_fen
    from orders o left join device_sessions ds on ds.order_id = o.id
    where ${orderWhere(s, 'consume', sql`o.device_id is not null`)}
    group by 1`;
}

/** Every device of the scope (and any other that has orders in it), with its usage. */
export function deviceUsageRows(s: ReportScope): SQL {
  const where: SQL[] = [];
  if (s.merchantId !== null) where.push(sql`d.merchant_id = ${s.merchantId}`);
  if (s.venueId !== null) where.push(sql`(d.venue_id = ${s.venueId} or a.k is not null)`);
  // An employee's figures are the orders they took: devices without any are not theirs to list.
  if (s.operatorId !== null) where.push(sql`a.k is not null`);
  return sql`with a as (${deviceUsageAgg(s, false)})
    select d.id as device_id, d.name as device_name, d.serial, d.venue_id, coalesce(v.name, '') as venue_name,
      d.merchant_id, m.name as merchant_name, coalesce(a.sessions, 0) as sessions,
      coalesce(a.minutes, 0) as minutes, coalesce(a.revenue_fen, 0) as revenue_fen,
      coalesce(a.refund_fen, 0) as refund_fen
    from devices d join merchants m on m.id = d.merchant_id left join venues v on v.id = d.venue_id
      left join a on a.k = d.id
    ${where.length ? sql`where ${sql.join(where, sql` and `)}` : sql``}
    order by d.merchant_id, d.venue_id nulls last, d.id`;
}

/** Recharges per method, or per day and method. */
export function rechargeAgg(s: ReportScope, byDay: boolean): SQL {
  return sql`select ${byDay ? localDay(s) : sql`''`} as date, o.method,
      count(*)::int8 as count, sum(o.amount_fen)::int8 as paid_fen, sum(o.bonus_fen)::int8 as bonus_fen,
      sum(o.refunded_fen)::int8 as refund_fen
    from orders o where ${orderWhere(s, 'recharge')}
    group by 1, 2 order by 1, 2`;
}

/** Cash taken, per local day and staff account (recharges and sales apart). */
export function cashAgg(s: ReportScope): SQL {
  const cash = sql`o.method = 'cash'`;
  const parts = [sql`(${orderWhere(s, 'recharge', cash)})`, sql`(${orderWhere(s, 'consume', cash)})`];
  return sql`select ${localDay(s)} as date, o.operator_account_id as account_id,
      coalesce(a.name, '') as account_name, o.merchant_id, m.name as merchant_name,
      count(*) filter (where o.kind = 'recharge')::int8 as recharge_count,
      coalesce(sum(o.amount_fen) filter (where o.kind = 'recharge'), 0)::int8 as recharge_fen,
      count(*) filter (where o.kind = 'consume')::int8 as sale_count,
      coalesce(sum(o.amount_fen) filter (where o.kind = 'consume'), 0)::int8 as sale_fen,
      sum(o.refunded_fen)::int8 as refund_fen
    from orders o join merchants m on m.id = o.merchant_id left join accounts a on a.id = o.operator_account_id
    where ${sql.join(parts, sql` or `)}
    group by 1, 2, 3, 4, 5 order by 1, 4, 2 nulls last`;
}

/** Consumption per venue and method. */
export function consumptionRows(s: ReportScope): SQL {
  return sql`select o.venue_id, coalesce(v.name, '') as venue_name, o.merchant_id, m.name as merchant_name,
      o.method, count(*)::int8 as count, sum(o.amount_fen)::int8 as amount_fen,
      sum(o.bonus_fen)::int8 as bonus_fen, sum(o.refunded_fen)::int8 as refund_fen
    from orders o join merchants m on m.id = o.merchant_id left join venues v on v.id = o.venue_id
    where ${orderWhere(s, 'consume')}
    group by 1, 2, 3, 4, 5 order by 3, 1 nulls last, 5`;
}

/** Consumption per local day and method. */
export function consumptionDays(s: ReportScope): SQL {
  return sql`select ${localDay(s)} as date, o.method, count(*)::int8 as count,
      sum(o.amount_fen)::int8 as amount_fen, sum(o.bonus_fen)::int8 as bonus_fen,
      sum(o.refunded_fen)::int8 as refund_fen
    from orders o where ${orderWhere(s, 'consume')}
    group by 1, 2 order by 1, 2`;
}
