/**
 * `/backend/reports/<kind>?from=&to=&venue_id=&merchant_id=&format=csv` and `/backend/daily/<kind>?date=`: the
 * reports of the staff side (docs/reports.md). Scoping from the token only: a merchant sees its own, the admin every
 * merchant or one (`merchant_id`), an employee the orders they took. Another merchant's venue or merchant id
 * answers 404. `format=csv` streams the same report as CSV.
 */
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Feature } from '../../../src/domain/levels';
import {
  CSV_ROWS_HEADER,
  DAILY_KINDS,
  DailyQuerySchema,
  REPORT_KINDS,
  ReportQuerySchema,
  type ReportAnswers,
  type ReportKind,
} from '../../../src/domain/reports.schema';
import { assertOwnMerchant, merchantScope, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv, StaffAuth } from '../../context';
import type { Db } from '../../db/client';
import { merchants, venues } from '../../db/schema';
import { notFound } from '../../lib/errors';
import { parseQuery } from '../../lib/validate';
import { buildReport } from './reports.build';
import { contentDisposition, csvFileName, csvRecords, csvStream } from './reports.csv';
import { deviceUsageCsvOf } from './reports.csv-pages';
import { withRollups } from './reports.split';
import { todayIn, type ReportScope } from './reports.sql';

const REPORT_FEATURES: Record<ReportKind, Feature> = {
  'device-usage': 'reports.deviceUsage',
  recharge: 'reports.recharge',
  cash: 'reports.cash',
  consumption: 'reports.consumption',
};
const DAILY_FEATURES = { recharge: 'daily.recharge', cash: 'daily.cash' } as const satisfies Record<
  (typeof DAILY_KINDS)[number],
  Feature
>;

/** The merchant the figures are for: the token's own, or for the admin the one asked for (checked to exist). */
async function merchantOf(db: Db, staff: StaffAuth, asked: number | undefined): Promise<number | null> {
  const own = merchantScope(staff);
  if (asked === undefined) return own;
  if (own !== null) {
    if (asked !== own) throw notFound('商户不存在');
    return own;
  }
  const [m] = await db.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, asked));
  if (!m) throw notFound('商户不存在');
  return asked;
}

async function venueOf(db: Db, staff: StaffAuth, merchantId: number | null, asked: number | undefined) {
  if (asked === undefined) return null;
  const [v] = await db
    .select({ id: venues.id, merchant_id: venues.merchant_id })
    .from(venues)
    .where(eq(venues.id, asked));
  if (!v) throw notFound('场地不存在');
  assertOwnMerchant(staff, v.merchant_id, '场地');
  if (merchantId !== null && v.merchant_id !== merchantId) throw notFound('场地不存在');
  return v.id;
}

interface Asked {
  from?: string | undefined;
  to?: string | undefined;
  venue_id?: number | undefined;
  merchant_id?: number | undefined;
  format: 'json' | 'csv';
}

async function answer(c: Context<AppEnv>, kind: ReportKind, q: Asked, daily: boolean) {
  const { db, env, now } = c.var.deps;
  const staff = staffOf(c);
  const at = now();
  const today = await todayIn(db, env.TZ, at);
  const merchantId = await merchantOf(db, staff, q.merchant_id);
  const scope: ReportScope = {
    merchantId,
    venueId: await venueOf(db, staff, merchantId, q.venue_id),
    operatorId: staff.role === 'employee' ? staff.account_id : null,
    from: q.from ?? q.to ?? today,
    to: q.to ?? q.from ?? today,
    tz: env.TZ,
    now: at,
  };
  const split = await withRollups(db, scope);
  if (q.format === 'csv') {
    const name = csvFileName(kind, scope.from, scope.to, daily);
    // Device usage has a row per device: streamed in keyset pages. The others are a few aggregate rows.
    const csv =
      kind === 'device-usage'
        ? await deviceUsageCsvOf(db, split)
        : await buildReport(kind, db, split).then((r) => ({
            rows: r.rows.length,
            records: csvRecords(kind, r),
          }));
    return c.body(csvStream(csv.records), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': contentDisposition(name),
      'cache-control': 'no-store',
      // The data rows to come (header and 合计 line not counted): the download shows "n / total rows".
      [CSV_ROWS_HEADER]: String(csv.rows),
    });
  }
  const body = await buildReport(kind, db, split);
  const report = {
    report: kind,
    from: scope.from,
    to: scope.to,
    today,
    tz: env.TZ,
    merchant_id: merchantId,
    venue_id: scope.venueId,
    ...body,
  } as ReportAnswers[ReportKind];
  return c.json(report);
}

export function reportsRoutes() {
  const r = new Hono<AppEnv>();
  for (const kind of REPORT_KINDS) {
    r.get(`/${kind}`, requireStaff(REPORT_FEATURES[kind]), async (c) =>
      answer(c, kind, parseQuery(c, ReportQuerySchema), false),
    );
  }
  return r;
}

export function dailyRoutes() {
  const r = new Hono<AppEnv>();
  for (const kind of DAILY_KINDS) {
    r.get(`/${kind}`, requireStaff(DAILY_FEATURES[kind]), async (c) => {
      const q = parseQuery(c, DailyQuerySchema);
      return answer(c, kind, { ...q, from: q.date, to: q.date }, true);
    });
  }
  return r;
}
