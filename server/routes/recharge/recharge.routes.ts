/**
 * `POST /backend/user/recharge` (a package bought with WeChat Pay) and `GET /backend/user/recharge-history` (the
 * member's recharges that took money, newest first, paged). Member cookie only.
 */
import { Hono } from 'hono';
import { and, count, desc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { RechargeRequestSchema, type RechargeHistoryItem } from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { merchants, orders } from '../../db/schema';
import { idempotencyKey } from '../../lib/idempotency-key';
import { parseJson } from '../../lib/validate';
import { offsetOf, pageOf, pageQuery } from '../../lib/list';
import { memberOf, requireMember } from '../../member/member.middleware';
import { BOOKED_STATUSES, paymentDeps, rechargePackage } from '../../services/orders';

const RechargeBodySchema = RechargeRequestSchema.extend({ return_path: z.string().max(512).optional() });

export function rechargeRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.post('/recharge', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const key = idempotencyKey(c);
    const body = await parseJson(c, RechargeBodySchema);
    const { return_path, ...req } = body;
    const res = await rechargePackage(paymentDeps(c.var.deps), memberId, req, {
      idempotencyKey: key,
      returnPath: return_path,
    });
    return c.json(res, 201);
  });
  r.get('/recharge-history', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const q = pageQuery(c);
    const { db } = c.var.deps;
    const where = and(
      eq(orders.member_id, memberId),
      eq(orders.kind, 'recharge'),
      inArray(orders.status, BOOKED_STATUSES),
    );
    const [total] = await db.select({ n: count() }).from(orders).where(where);
    const rows = await db
      .select({
        order_no: orders.order_no,
        merchant_name: merchants.name,
        amount_fen: orders.amount_fen,
        bonus_fen: orders.bonus_fen,
        method: orders.method,
        status: orders.status,
        created_at: orders.created_at,
      })
      .from(orders)
      .innerJoin(merchants, eq(merchants.id, orders.merchant_id))
      .where(where)
      .orderBy(desc(orders.created_at), desc(orders.id))
      .limit(q.page_size)
      .offset(offsetOf(q));
    const items: RechargeHistoryItem[] = rows.map((o) => ({
      ...o,
      method: o.method === 'cash' ? 'cash' : 'wechat',
      created_at: o.created_at.toISOString(),
    }));
    return c.json(pageOf(items, total?.n ?? 0, q));
  });

  return r;
}
