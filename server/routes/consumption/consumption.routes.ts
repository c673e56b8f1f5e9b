/**
 * `GET /backend/user/consumption-history`: the member's consumption orders that took money, newest first, paged.
 */
import { Hono } from 'hono';
import { and, count, desc, eq, inArray } from 'drizzle-orm';
import { type ConsumptionHistoryItem } from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { devices, merchants, orders, venues } from '../../db/schema';
import { offsetOf, pageOf, pageQuery } from '../../lib/list';
import { memberOf, requireMember } from '../../member/member.middleware';
import { BOOKED_STATUSES } from '../../services/orders';

export function consumptionRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.get('/consumption-history', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const q = pageQuery(c);
    const { db } = c.var.deps;
    const where = and(
      eq(orders.member_id, memberId),
      eq(orders.kind, 'consume'),
      inArray(orders.status, BOOKED_STATUSES),
    );
    const [total] = await db.select({ n: count() }).from(orders).where(where);
    const rows = await db
      .select({
        order_no: orders.order_no,
        merchant_name: merchants.name,
        device_name: devices.name,
        venue_name: venues.name,
        minutes: orders.minutes,
        amount_fen: orders.amount_fen,
        refunded_fen: orders.refunded_fen,
        method: orders.method,
        status: orders.status,
        created_at: orders.created_at,
      })
      .from(orders)
      .innerJoin(merchants, eq(merchants.id, orders.merchant_id))
      .leftJoin(devices, eq(devices.id, orders.device_id))
      .leftJoin(venues, eq(venues.id, orders.venue_id))
      .where(where)
      .orderBy(desc(orders.created_at), desc(orders.id))
      .limit(q.page_size)
      .offset(offsetOf(q));
    const items: ConsumptionHistoryItem[] = rows.map((o) => ({
      ...o,
      device_name: o.device_name ?? '',
      venue_name: o.venue_name ?? '',
      minutes: o.minutes ?? 0,
      method: o.method === 'wechat' ? 'wechat' : 'wallet',
      created_at: o.created_at.toISOString(),
    }));
    return c.json(pageOf(items, total?.n ?? 0, q));
  });

  return r;
}
