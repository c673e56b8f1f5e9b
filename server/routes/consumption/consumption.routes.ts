/**
 * `GET /backend/user/consumption-history`: the member's consumption orders that took money, newest first, paged,
 * each with its latest refund to WeChat and that refund's state (docs/money.md "WeChat refunds").
 */
import { Hono } from 'hono';
import { and, asc, count, desc, eq, inArray } from 'drizzle-orm';
import { type ConsumptionHistoryItem } from '../../../src/domain/api';
import type { WechatRefundView } from '../../../src/domain/refunds.schema';
import type { AppEnv } from '../../context';
import type { Db } from '../../db/client';
import { devices, merchants, orders, venues, wechat_refunds } from '../../db/schema';
import { offsetOf, pageOf, pageQuery } from '../../lib/list';
import { memberOf, requireMember } from '../../member/member.middleware';
import { BOOKED_STATUSES } from '../../services/orders';

/** The latest WeChat refund of each order (what the member sees; WeChat's error text stays with staff). */
async function latestRefunds(db: Db, orderIds: number[]): Promise<Map<number, WechatRefundView>> {
  if (orderIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(wechat_refunds)
    .where(inArray(wechat_refunds.order_id, orderIds))
    .orderBy(asc(wechat_refunds.id));
  return new Map(
    rows.map((f) => [
      f.order_id,
      {
        id: f.id,
        status: f.status,
        amount_fen: f.amount_fen,
        abnormal_type: f.abnormal_type,
        created_at: f.created_at.toISOString(),
      },
    ]),
  );
}

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
        id: orders.id,
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
    const refunds = await latestRefunds(
      db,
      rows.map((o) => o.id),
    );
    const items: ConsumptionHistoryItem[] = rows.map(({ id, ...o }) => ({
      ...o,
      device_name: o.device_name ?? '',
      venue_name: o.venue_name ?? '',
      minutes: o.minutes ?? 0,
      method: o.method === 'wechat' ? 'wechat' : 'wallet',
      created_at: o.created_at.toISOString(),
      wechat_refund: refunds.get(id) ?? null,
    }));
    return c.json(pageOf(items, total?.n ?? 0, q));
  });

  return r;
}
