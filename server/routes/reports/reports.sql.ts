/**
 * The SQL of the reports: every figure is aggregated by PostgreSQL (PGlite and a server alike) from the rows of
 * reports.source.ts, which come from `orders` and `device_sessions` on the live days and from the daily rollups on
 * the rolled days (docs/reports.md).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { moneyRows, usageRows, type ReportScope } from './reports.source';

export type { ReportScope } from './reports.source';

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
 * Device usage aggregated twice in one pass over the use rows (grouping sets): per device (`g = 'd'`, key the
 * device id) and per local day (`g = 'x'`, key the day).
 */
export function deviceUsageAgg(s: ReportScope): SQL {
  return sql`select case when grouping(u.day) = 1 then 'd' else 'x' end as g,
      coalesce(u.device_id::text, to_char(u.day, 'YYYY-MM-DD')) as k,
      sum(u.sessions)::int8 as sessions, coalesce(sum(u.minutes), 0)::int8 as minutes,
      sum(u.revenue)::int8 as revenue_fen, sum(u.refund)::int8 as refund_fen
    from (${usageRows(s)}) u group by grouping sets ((u.device_id), (u.day))`;
}

const DEVICE_COLUMNS = sql`d.id as device_id, d.name as device_name, d.serial, d.venue_id,
  coalesce(v.name, '') as venue_name, d.merchant_id, m.name as merchant_name
  from devices d join merchants m on m.id = d.merchant_id left join venues v on v.id = d.venue_id`;

/** The devices of the scope (with a venue filter: the venue's devices; the usage adds those with orders there). */
export function deviceList(s: ReportScope): SQL {
  const where: SQL[] = [sql`true`];
  if (s.merchantId !== null) where.push(sql`d.merchant_id = ${s.merchantId}`);
  if (s.venueId !== null) where.push(sql`d.venue_id = ${s.venueId}`);
  return sql`select ${DEVICE_COLUMNS} where ${sql.join(where, sql` and `)}`;
}

/** How many devices the list above holds (the device usage CSV announces its row count before the rows). */
export function deviceListCount(s: ReportScope): SQL {
  return sql`select count(*)::int8 as n from (${deviceList(s)}) x`;
}

/** One keyset page of the device list, in the report's order (merchant, venue, device), after `after`. */
export function deviceListPage(s: ReportScope, after: readonly number[] | null, limit: number): SQL {
  const key = sql`(x.merchant_id, coalesce(x.venue_id, 2147483647), x.device_id)`;
  const from = after ? sql`${key} > (${after[0]}::int, ${after[1]}::int, ${after[2]}::int)` : sql`true`;
  return sql`select * from (${deviceList(s)}) x where ${from}
    order by x.merchant_id, coalesce(x.venue_id, 2147483647), x.device_id limit ${limit}`;
}

/** Named devices (those with usage in the scope that the list above left out). */
export function devicesById(ids: number[]): SQL {
  return sql`select ${DEVICE_COLUMNS} where d.id in (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;
}

/** Recharges per local day and method (the rows per method are their sums). */
export function rechargeAgg(s: ReportScope): SQL {
  return sql`select date, method, sum(count)::int8 as count, sum(amount_fen)::int8 as paid_fen,
      sum(bonus_fen)::int8 as bonus_fen, sum(refund_fen)::int8 as refund_fen
    from (${moneyRows(s, { kinds: ['recharge'] })}) x
    group by 1, 2 order by 1, 2`;
}

/** Cash taken, per local day and staff account (recharges and sales apart). */
export function cashAgg(s: ReportScope): SQL {
  return sql`with x as (${moneyRows(s, { kinds: ['recharge', 'consume'], method: 'cash' })}), g as (
      select date, operator_account_id as account_id, merchant_id,
        coalesce(sum(count) filter (where kind = 'recharge'), 0)::int8 as recharge_count,
        coalesce(sum(amount_fen) filter (where kind = 'recharge'), 0)::int8 as recharge_fen,
        coalesce(sum(count) filter (where kind = 'consume'), 0)::int8 as sale_count,
        coalesce(sum(amount_fen) filter (where kind = 'consume'), 0)::int8 as sale_fen,
        sum(refund_fen)::int8 as refund_fen
      from x group by 1, 2, 3
    )
    select g.*, coalesce(a.name, '') as account_name, m.name as merchant_name
    from g join merchants m on m.id = g.merchant_id left join accounts a on a.id = g.account_id
    order by g.date, g.merchant_id, g.account_id nulls last`;
}

/** Consumption per local day, venue and method, in one pass (rows and days are sums of these). */
export function consumptionAgg(s: ReportScope): SQL {
  return sql`with a as (
      select date, venue_id, merchant_id, method, sum(count)::int8 as count,
        sum(amount_fen)::int8 as amount_fen, sum(bonus_fen)::int8 as bonus_fen,
        sum(refund_fen)::int8 as refund_fen
      from (${moneyRows(s, { kinds: ['consume'] })}) x
      group by 1, 2, 3, 4
    )
    select a.*, coalesce(v.name, '') as venue_name, m.name as merchant_name
    from a join merchants m on m.id = a.merchant_id left join venues v on v.id = a.venue_id
    order by a.merchant_id, a.venue_id nulls last, a.method, a.date`;
}
