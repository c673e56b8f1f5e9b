/**
 * Which days of a report come from the daily rollups: the days of the range marked fresh in `report_days` for the
 * server's TZ. Every other day (today, a day not rolled yet, a day a late change marked stale) is computed live from
 * the orders (docs/decisions.md D21).
 */
import { sql } from 'drizzle-orm';
import { addDays, daysBetween } from '../../../src/domain/reports.schema';
import type { Db } from '../../db/client';
import type { DayRange, ReportScope } from './reports.source';
import { rowsOf } from './reports.sql';

/** Consecutive days (sorted) as ranges. */
export function toRanges(days: readonly string[]): DayRange[] {
  const out: DayRange[] = [];
  for (const day of days) {
    const last = out.at(-1);
    if (last && addDays(last.to, 1) === day) last.to = day;
    else out.push({ from: day, to: day });
  }
  return out;
}

/** The scope with its days split between the rollups and the orders. */
export async function withRollups(db: Db, s: ReportScope): Promise<ReportScope> {
  const fresh = await rowsOf<{ d: string }>(
    db,
    sql`select to_char(day, 'YYYY-MM-DD') as d from report_days
      where tz = ${s.tz} and fresh and day between ${s.from}::date and ${s.to}::date`,
  );
  const rolled = new Set(fresh.map((r) => r.d));
  const all = Array.from({ length: daysBetween(s.from, s.to) }, (_, i) => addDays(s.from, i));
  return {
    ...s,
    split: {
      rolled: toRanges(all.filter((d) => rolled.has(d))),
      live: toRanges(all.filter((d) => !rolled.has(d))),
    },
  };
}
