/**
 * `GET /backend/dashboard`: counts for the staff home, every query scoped by the token's merchant. Zeros when there
 * is nothing yet. "Today" is the server's local day in TZ (DESIGN.md 7), computed in SQL so PGlite and PostgreSQL agree.
 */
import { and, count, gt, inArray, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import type { DashboardSummary } from '../../src/domain/dashboard';
import { merchantScope, merchantWhere, requireStaff, staffOf } from '../auth/staff.middleware';
import { forbidden } from '../lib/errors';
import type { AppEnv } from '../context';
import { devices, orders, venues } from '../db/schema';

/** A device is online while its last heartbeat is under 90 s old (DESIGN.md 9). */
export const ONLINE_WINDOW_MS = 90_000;

export function dashboardRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/', requireStaff(), async (c) => {
    const { db, env, now } = c.var.deps;
    const staff = staffOf(c);
    // The merchant's figures are for those who run it: a level whose only feature is the wallet (partners, by
    // default) sees its own share income in the wallet, not the merchant's revenue (DESIGN.md 5).
    if (![...staff.features].some((f) => f !== 'wallet')) throw forbidden('无权查看商户概览');
    const at = now();
    const tz = env.TZ;
    const [v] = await db.select({ n: count() }).from(venues).where(merchantWhere(staff, venues.merchant_id));
    const [d] = await db
      .select({ n: count() })
      .from(devices)
      .where(merchantWhere(staff, devices.merchant_id));
    const [online] = await db
      .select({ n: count() })
      .from(devices)
      .where(
        and(
          merchantWhere(staff, devices.merchant_id),
          gt(devices.last_heartbeat_at, new Date(at.getTime() - ONLINE_WINDOW_MS)),
        ),
      );
    const localDay = sql`(${at.toISOString()}::timestamptz at time zone ${tz})::date`;
    const [today] = await db
      .select({
        n: count(),
        amount: sql<string>`coalesce(sum(${orders.amount_fen} - ${orders.refunded_fen}), 0)`,
        day: sql<string>`to_char(${localDay}, 'YYYY-MM-DD')`,
      })
      .from(orders)
      .where(
        and(
          merchantWhere(staff, orders.merchant_id),
          inArray(orders.status, ['paid', 'started', 'completed', 'refunded']),
          sql`(${orders.created_at} at time zone ${tz})::date = ${localDay}`,
        ),
      );
    const body: DashboardSummary = {
      merchant_id: merchantScope(staff),
      venues: v?.n ?? 0,
      devices: d?.n ?? 0,
      devices_online: online?.n ?? 0,
      today: { date: today?.day ?? '', orders: today?.n ?? 0, amount_fen: Number(today?.amount ?? 0) },
    };
    return c.json(body);
  });
  return r;
}
