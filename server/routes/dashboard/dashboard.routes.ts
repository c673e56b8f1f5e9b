/**
 * `GET /backend/dashboard`: counts for the staff home, every query scoped by the token's merchant (an employee's
 * figures by the orders they took). Zeros when there is nothing yet. "Today" is the server's local day in TZ,
 * computed in SQL so PGlite and PostgreSQL agree; an order counts on the day it was paid.
 */
import { and, count, eq, gt, inArray, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import type { DashboardSummary } from '../../../src/domain/dashboard';
import { merchantScope, merchantWhere, requireStaff, staffOf } from '../../auth/staff.middleware';
import { forbidden } from '../../lib/errors';
import type { AppEnv } from '../../context';
import { devices, orders, venues } from '../../db/schema';
import { ONLINE_WINDOW_MS } from '../../services/devices/sessions';
import { openFeedbackCount } from '../feedback/feedback-inbox.routes';

export function dashboardRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/', requireStaff(), async (c) => {
    const { db, env, now } = c.var.deps;
    const staff = staffOf(c);
    // The merchant's figures are for those who run it: a level whose only feature is the wallet (partners, by
    // default) sees its own share income in the wallet, not the merchant's revenue (docs/decisions.md D4).
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
    const net = sql`${orders.amount_fen} - ${orders.refunded_fen}`;
    const isRecharge = sql`${orders.kind} = 'recharge'`;
    const isConsume = sql`${orders.kind} = 'consume'`;
    // Money in (recharges) and revenue (consumption) are different money: a recharge spent on a device is the same
    // yuan twice, so they are never added together. An employee sees the orders they took.
    const [today] = await db
      .select({
        recharges: sql<number>`count(*) filter (where ${isRecharge})`.mapWith(Number),
        recharge: sql<string>`coalesce(sum(${net}) filter (where ${isRecharge}), 0)`,
        consumes: sql<number>`count(*) filter (where ${isConsume})`.mapWith(Number),
        revenue: sql<string>`coalesce(sum(${net}) filter (where ${isConsume}), 0)`,
        day: sql<string>`to_char(${localDay}, 'YYYY-MM-DD')`,
      })
      .from(orders)
      .where(
        and(
          merchantWhere(staff, orders.merchant_id),
          staff.role === 'employee' ? eq(orders.operator_account_id, staff.account_id) : undefined,
          inArray(orders.status, ['paid', 'started', 'completed', 'refunded']),
          sql`(coalesce(${orders.paid_at}, ${orders.created_at}) at time zone ${tz})::date = ${localDay}`,
        ),
      );
    const revenue = Number(today?.revenue ?? 0);
    const body: DashboardSummary = {
      merchant_id: merchantScope(staff),
      venues: v?.n ?? 0,
      devices: d?.n ?? 0,
      devices_online: online?.n ?? 0,
      ...(staff.level === 1 || staff.features.has('merchant.feedback')
        ? { feedback_open: await openFeedbackCount(db, staff) }
        : {}),
      today: {
        date: today?.day ?? '',
        orders: today?.consumes ?? 0,
        revenue_fen: revenue,
        amount_fen: revenue,
        recharges: today?.recharges ?? 0,
        recharge_fen: Number(today?.recharge ?? 0),
      },
    };
    return c.json(body);
  });
  return r;
}
