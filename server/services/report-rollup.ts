/**
 * The daily rollups of the reports (docs/decisions.md D21): an idempotent job sums each closed local day (in the
 * server's TZ) of every merchant into `report_money_days` and `report_device_days` and marks the day fresh in
 * `report_days`. Reports read fresh days from the rollups and compute every other day live from the orders.
 *
 * - Several instances may run it: a day is claimed with its `report_days` row lock (FOR UPDATE SKIP LOCKED), so
 *   no day is summed twice at once, and re-rolling a day replaces its rows.
 * - A change to an order of a rolled day (a late refund) marks the day stale through the `orders` trigger (migration
 *   0011); the next run rolls it again. The marker rows are created under a SHARE lock on `orders`, so no order
 *   write in flight at that moment can miss the trigger.
 * - A day with a device session still starting or running before its end is left live: its minutes still move.
 */
import { sql } from 'drizzle-orm';
import { addDays } from '../../src/domain/reports.schema';
import type { Db } from '../db/client';
import { deviceUseRows, localDay, moneyRows, type ReportScope } from '../routes/reports/reports.source';
import { toRanges } from '../routes/reports/reports.split';
import { rowsOf, todayIn } from '../routes/reports/reports.sql';

export interface RollupResult {
  /** Days summed by this run. */
  rolled: string[];
  /** Closed days left live because a session of theirs is still running. */
  unsettled: string[];
}

const dayList = (days: readonly string[]) =>
  sql.join(
    days.map((d) => sql`${d}::date`),
    sql`, `,
  );

/** The first local day with an order, through the per-merchant paid-moment index. */
async function firstOrderDay(db: Db, tz: string): Promise<string | null> {
  const [r] = await rowsOf<{ d: string | null }>(
    db,
    sql`select to_char((min(f.first) at time zone ${tz})::date, 'YYYY-MM-DD') as d from merchants m
      cross join lateral (select min(coalesce(o.paid_at, o.created_at)) as first from orders o
        where o.merchant_id = m.id) f`,
  );
  return r?.d ?? null;
}

/** One `report_days` row per closed day, created under a SHARE lock on orders (no write in flight misses it). */
async function ensureDayRows(db: Db, tz: string, first: string, last: string): Promise<void> {
  const [have] = await rowsOf<{ n: number; want: number }>(
    db,
    sql`select count(*)::int as n, (${last}::date - ${first}::date + 1)::int as want from report_days
      where tz = ${tz} and day between ${first}::date and ${last}::date`,
  );
  if (have && Number(have.n) === Number(have.want)) return;
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local lock_timeout = '5s'`);
    await tx.execute(sql`lock table orders in share mode`);
    await tx.execute(sql`insert into report_days (tz, day, start_at, end_at)
      select ${tz}, g::date, g::date::timestamp at time zone ${tz}, (g::date + 1)::timestamp at time zone ${tz}
      from generate_series(${first}::date, ${last}::date, interval '1 day') g
      on conflict do nothing`);
  });
}

/** Local days with a session whose minutes may still change (starting, or running before its end). */
async function busyDays(db: Db, tz: string, now: Date): Promise<Set<string>> {
  const rows = await rowsOf<{ d: string }>(
    db,
    sql`select distinct ${localDay({ tz })} as d from device_sessions ds join orders o on o.id = ds.order_id
      where ds.status in ('starting', 'running')
        and (ds.status = 'starting' or ds.ends_at is null or ds.ends_at > ${now.toISOString()}::timestamptz)`,
  );
  return new Set(rows.map((r) => r.d));
}

/** Sums the claimed days of one batch (a transaction holding their row locks). */
async function rollBatch(db: Db, tz: string, days: string[], now: Date): Promise<RollupResult> {
  return db.transaction(async (tx) => {
    const claimed = await rowsOf<{ d: string }>(
      tx,
      sql`select to_char(day, 'YYYY-MM-DD') as d from report_days
        where tz = ${tz} and day in (${dayList(days)}) and not fresh order by day for update skip locked`,
    );
    const busy = await busyDays(tx, tz, now);
    const ready = claimed.map((r) => r.d).filter((d) => !busy.has(d));
    const unsettled = claimed.map((r) => r.d).filter((d) => busy.has(d));
    if (ready.length === 0) return { rolled: [], unsettled };
    await tx.execute(sql`delete from report_money_days where tz = ${tz} and day in (${dayList(ready)})`);
    await tx.execute(sql`delete from report_device_days where tz = ${tz} and day in (${dayList(ready)})`);
    const merchants = await rowsOf<{ id: number }>(tx, sql`select id from merchants order by id`);
    for (const m of merchants) {
      const s: ReportScope = {
        merchantId: Number(m.id),
        venueId: null,
        operatorId: null,
        from: ready[0]!,
        to: ready.at(-1)!,
        tz,
        now,
        split: { rolled: [], live: toRanges(ready) },
      };
      await tx.execute(sql`insert into report_money_days (tz, day, merchant_id, venue_id, kind, method,
          operator_account_id, count, amount_fen, bonus_fen, refund_fen)
        select ${tz}, date::date, merchant_id, venue_id, kind, method, operator_account_id, sum(count),
          sum(amount_fen), sum(bonus_fen), sum(refund_fen)
        from (${moneyRows(s, { kinds: ['recharge', 'consume', 'service'] })}) x
        group by 2, 3, 4, 5, 6, 7`);
      await tx.execute(sql`insert into report_device_days (tz, day, merchant_id, venue_id, device_id,
          operator_account_id, sessions, minutes, revenue_fen, refund_fen)
        select ${tz}, day::date, merchant_id, venue_id, device_id, operator_account_id, sum(sessions),
          coalesce(sum(minutes), 0), sum(revenue), sum(refund)
        from (${deviceUseRows(s)}) u
        group by 2, 3, 4, 5, 6`);
    }
    await tx.execute(sql`update report_days set fresh = true, rolled_at = ${now.toISOString()}::timestamptz
      where tz = ${tz} and day in (${dayList(ready)})`);
    return { rolled: ready, unsettled };
  });
}

/**
 * Rolls up every closed local day not fresh yet, `batchDays` days per transaction. Idempotent: a second run finds
 * nothing to do; a day claimed by another instance is skipped.
 */
export async function rollUpReports(
  db: Db,
  tz: string,
  now: Date,
  opts: { batchDays?: number } = {},
): Promise<RollupResult> {
  const out: RollupResult = { rolled: [], unsettled: [] };
  const today = await todayIn(db, tz, now);
  const first = await firstOrderDay(db, tz);
  if (!first || first >= today) return out;
  await ensureDayRows(db, tz, first, addDays(today, -1));
  const pending = (
    await rowsOf<{ d: string }>(
      db,
      sql`select to_char(day, 'YYYY-MM-DD') as d from report_days
        where tz = ${tz} and not fresh and day < ${today}::date order by day`,
    )
  ).map((r) => r.d);
  const size = opts.batchDays ?? 31;
  for (let i = 0; i < pending.length; i += size) {
    const r = await rollBatch(db, tz, pending.slice(i, i + size), now);
    out.rolled.push(...r.rolled);
    out.unsettled.push(...r.unsettled);
  }
  return out;
}
