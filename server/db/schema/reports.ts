/**
 * Daily rollups of the reports (docs/reports.md, docs/decisions.md D21): closed local days are summed once by an
 * idempotent job (server/services/report-rollup.ts) into these tables; a report reads the rolled days from here and
 * computes every other day (today, a day not rolled yet, a day marked stale) live from the orders. A trigger on
 * `orders` marks a rolled day stale when one of its orders changes (a late refund), so a rollup never disagrees
 * with the orders it sums. Derived data: it can be deleted at any time and is rebuilt.
 */
import { bigint, boolean, date, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/** One row per local day (in `tz`) the job has claimed; `fresh` = its rollup rows equal the orders. */
export const report_days = pgTable(
  'report_days',
  {
    tz: text().notNull(),
    day: date({ mode: 'string' }).notNull(),
    /** The day's local midnights as instants: the trigger finds a day from an order's paid moment without a TZ. */
    start_at: ts().notNull(),
    end_at: ts().notNull(),
    fresh: boolean().notNull().default(false),
    rolled_at: ts(),
    created_at: ts().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tz, t.day] }), index('report_days_end_idx').on(t.end_at)],
);

const fen = () => bigint({ mode: 'number' }).notNull();

/** Orders that took money, summed per day, merchant, venue, kind, method and staff account. */
export const report_money_days = pgTable(
  'report_money_days',
  {
    tz: text().notNull(),
    day: date({ mode: 'string' }).notNull(),
    merchant_id: integer().notNull(),
    venue_id: integer(),
    kind: text().notNull(),
    method: text().notNull(),
    operator_account_id: integer(),
    count: integer().notNull(),
    amount_fen: fen(),
    bonus_fen: fen(),
    refund_fen: fen(),
  },
  (t) => [
    index('report_money_days_merchant_idx').on(t.tz, t.merchant_id, t.day),
    index('report_money_days_day_idx').on(t.tz, t.day),
  ],
);

/** Device use (consumption and service starts) summed per day, merchant, venue, device and staff account. */
export const report_device_days = pgTable(
  'report_device_days',
  {
    tz: text().notNull(),
    day: date({ mode: 'string' }).notNull(),
    merchant_id: integer().notNull(),
    venue_id: integer(),
    device_id: integer().notNull(),
    operator_account_id: integer(),
    sessions: integer().notNull(),
    minutes: fen(),
    revenue_fen: fen(),
    refund_fen: fen(),
  },
  (t) => [
    index('report_device_days_merchant_idx').on(t.tz, t.merchant_id, t.day),
    index('report_device_days_day_idx').on(t.tz, t.day),
  ],
);
