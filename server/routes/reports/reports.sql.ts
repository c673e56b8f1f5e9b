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
export function orderWhere(s: ReportScope, kind: 'recharge' | 'consume' | null, extra?: SQL): SQL {
  const parts: SQL[] = [
    kind === null ? sql`true` : sql`o.kind = ${kind}`,
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

/**
 * How far a session's creation may lie from its order's payment: a paid order starts its session at once or is
 * refunded, so a week is a wide margin. It bounds the sessions joined (device_sessions_created_idx) instead of
 * hashing every session ever run; the join on order_id keeps the result exact.
 */
const SESSION_MARGIN = sql`interval '7 days'`;

/**
 * Device usage aggregated twice in one pass over the orders (consumption and free service starts, which use a
 * device without revenue): per device (`g = 'd'`, key the device id) and per local day (`g = 'x'`, key the day).
 */
export function deviceUsageAgg(s: ReportScope): SQL {
  const start = sql`(${s.from}::date::timestamp at time zone ${s.tz})`;
  const end = sql`((${s.to}::date + 1)::timestamp at time zone ${s.tz})`;
  const kinds = sql`o.kind in ('consume', 'service') and o.device_id is not null`;
  return sql`with u as materialized (
      select o.device_id, ${localDay(s)} as day, (ds.started_at is not null)::int as started,
        ${usedMinutes(s)} as minutes, o.amount_fen - o.refunded_fen as revenue, o.refunded_fen as refund
      from orders o left join device_sessions ds on ds.order_id = o.id
        and ds.created_at >= ${start} - ${SESSION_MARGIN} and ds.created_at < ${end} + ${SESSION_MARGIN}
      where ${orderWhere(s, null, kinds)}
    ), a as (
      select 'd' as g, device_id::text as k, started, minutes, revenue, refund from u
      union all select 'x', day, started, minutes, revenue, refund from u
    )
    select g, k, sum(started)::int8 as sessions, coalesce(sum(minutes), 0)::int8 as minutes,
      sum(revenue)::int8 as revenue_fen, sum(refund)::int8 as refund_fen
    from a group by g, k`;
}

/** The devices of the scope (with a venue filter: the venue's devices; the usage adds those with orders there). */
export function deviceList(s: ReportScope): SQL {
  const where: SQL[] = [sql`true`];
  if (s.merchantId !== null) where.push(sql`d.merchant_id = ${s.merchantId}`);
  if (s.venueId !== null) where.push(sql`d.venue_id = ${s.venueId}`);
  return sql`select d.id as device_id, d.name as device_name, d.serial, d.venue_id, coalesce(v.name, '') as venue_name,
      d.merchant_id, m.name as merchant_name
    from devices d join merchants m on m.id = d.merchant_id left join venues v on v.id = d.venue_id
    where ${sql.join(where, sql` and `)}`;
}

/** Named devices (those with usage in the scope that the list above left out). */
export function devicesById(ids: number[]): SQL {
  return sql`select d.id as device_id, d.name as device_name, d.serial, d.venue_id,
      coalesce(v.name, '') as venue_name, d.merchant_id, m.name as merchant_name
    from devices d join merchants m on m.id = d.merchant_id left join venues v on v.id = d.venue_id
    where d.id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`;
}

/** Recharges per local day and method (the rows per method are their sums). */
export function rechargeAgg(s: ReportScope): SQL {
  return sql`select ${localDay(s)} as date, o.method,
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

/** Consumption per local day, venue and method, in one pass (rows and days are sums of these). */
export function consumptionAgg(s: ReportScope): SQL {
  return sql`with a as (
      select ${localDay(s)} as date, o.venue_id, o.merchant_id, o.method, count(*)::int8 as count,
        sum(o.amount_fen)::int8 as amount_fen, sum(o.bonus_fen)::int8 as bonus_fen,
        sum(o.refunded_fen)::int8 as refund_fen
      from orders o where ${orderWhere(s, 'consume')}
      group by 1, 2, 3, 4
    )
    select a.*, coalesce(v.name, '') as venue_name, m.name as merchant_name
    from a join merchants m on m.id = a.merchant_id left join venues v on v.id = a.venue_id
    order by a.merchant_id, a.venue_id nulls last, a.method, a.date`;
}
