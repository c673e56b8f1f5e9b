/**
 * `POST /backend/merchant/refunds/:id/retry`: staff (level 1, or level 2 for its own merchant's orders) send again a
 * WeChat refund that WeChat closed, could not pay out, or refused (docs/money.md "WeChat refunds"). The row goes
 * back to `pending` with an audit row in the same transaction; the outbox worker sends it after commit. Another
 * merchant's refund answers 404; one that is not in a retryable state 409 `REFUND_NOT_RETRYABLE`.
 */
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { RefundRetryResult } from '../../../src/domain/refunds.schema';
import { merchantScope, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import { orders, wechat_refunds } from '../../db/schema';
import { conflict, forbidden, notFound } from '../../lib/errors';
import { parseParam } from '../../lib/validate';
import { writeAudit } from '../../services/audit';
import { retryWechatRefund } from '../../services/orders/refund-outbox';

export function refundsRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireStaff('merchant.members'));

  r.post('/:id/retry', async (c) => {
    const staff = staffOf(c);
    if (staff.level > 2) throw forbidden('仅平台管理员和商户可以重试退款');
    const { db, now } = c.var.deps;
    const id = parseParam(c, 'id');
    const own = merchantScope(staff);
    const refund = await db.transaction(async (tx) => {
      const [found] = await tx
        .select({ merchant_id: orders.merchant_id, order_no: orders.order_no })
        .from(wechat_refunds)
        .innerJoin(orders, eq(orders.id, wechat_refunds.order_id))
        .where(eq(wechat_refunds.id, id));
      if (!found || (own !== null && found.merchant_id !== own)) throw notFound('退款不存在');
      const done = await retryWechatRefund(tx, id, now());
      if (!done) throw conflict('REFUND_NOT_RETRYABLE', '该退款不是关闭、异常或失败状态，无需重试');
      await writeAudit(tx, staff, {
        action: 'refund.retry',
        entity: 'wechat_refund',
        entity_id: id,
        merchant_id: found.merchant_id,
        before: { status: done.before.status, out_refund_no: done.before.out_refund_no },
        after: { status: done.after.status, out_refund_no: done.after.out_refund_no },
        extra: { order_no: found.order_no },
      });
      return done.after;
    });
    c.var.deps.refunds?.kick().catch(() => undefined);
    const body: RefundRetryResult = {
      refund: {
        id: refund.id,
        status: refund.status,
        amount_fen: refund.amount_fen,
        last_error: refund.last_error,
        created_at: refund.created_at.toISOString(),
      },
    };
    return c.json(body);
  });
  return r;
}
