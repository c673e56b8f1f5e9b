/** The order status query: one outbound WeChat query per order in flight (a claim on the order row). */
import { and, eq, isNull, lte, or } from 'drizzle-orm';
import type { OrderStatus } from '../../../src/domain/api';
import { orders } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import { applyWechatTransaction, isDeadPayment } from './notify';
import type { Order, PaymentDeps } from './order';

/** Least time between the end of one outbound WeChat order query for an order and the start of the next. */
export const ORDER_QUERY_INTERVAL_MS = 3000;

/** How long a claimed query may run (the WeChat Pay client's timeout): no second one starts meanwhile. */
export const ORDER_QUERY_LEASE_MS = 10_000;

/**
 * Claims the right to ask WeChat about a pending order now: one row update that only one caller wins, whoever asks
 * and on whichever instance. `wechat_queried_at` holds "not before": the claim pushes it past the query's timeout
 * (so one query at most is in flight), and `releaseOrderQuery` sets it to the interval after the answer.
 */
export async function claimOrderQuery(deps: PaymentDeps, orderId: number): Promise<boolean> {
  const now = deps.now();
  const [won] = await deps.db
    .update(orders)
    .set({ wechat_queried_at: new Date(now.getTime() + ORDER_QUERY_LEASE_MS) })
    .where(
      and(
        eq(orders.id, orderId),
        eq(orders.status, 'pending'),
        or(isNull(orders.wechat_queried_at), lte(orders.wechat_queried_at, now)),
      ),
    )
    .returning({ id: orders.id });
  return won !== undefined;
}

export async function releaseOrderQuery(deps: PaymentDeps, orderId: number): Promise<void> {
  await deps.db
    .update(orders)
    .set({ wechat_queried_at: new Date(deps.now().getTime() + ORDER_QUERY_INTERVAL_MS) })
    .where(eq(orders.id, orderId));
}

/**
 * GET /backend/api/query: the order's status for the pay page's polling. A pending WeChat order is checked with
 * WeChat's order query, and a SUCCESS is booked exactly as a notification would be (so a late notification does
 * not keep the member waiting).
 */
export async function queryOrder(deps: PaymentDeps, orderNo: string): Promise<OrderStatus> {
  const [order] = await deps.db.select().from(orders).where(eq(orders.order_no, orderNo));
  if (!order) throw new HttpError(404, 'ORDER_NOT_FOUND', '订单不存在');
  let current: Order = order;
  if (
    order.status === 'pending' &&
    order.method === 'wechat' &&
    order.wechat_prepay_id &&
    deps.wechat &&
    (await claimOrderQuery(deps, order.id))
  ) {
    try {
      const t = await deps.wechat.pay.queryByOutTradeNo(order.order_no);
      if (t && t.trade_state === 'SUCCESS') {
        const res = await applyWechatTransaction(deps, t, {
          notification_id: `query:${t.transaction_id ?? ''}`,
        });
        if (res.order) current = res.order;
        else {
          const [again] = await deps.db.select().from(orders).where(eq(orders.id, order.id));
          if (again) current = again;
        }
      } else if (isDeadPayment(t, order, deps.now())) {
        // Never paid and never will be: close it (a late SUCCESS would still be booked, see applyWechatTransaction).
        const [closed] = await deps.db
          .update(orders)
          .set({ status: 'closed', failure_reason: '支付未完成，订单已关闭' })
          .where(and(eq(orders.id, order.id), eq(orders.status, 'pending')))
          .returning();
        if (closed) current = closed;
      }
    } catch (err) {
      // WeChat unreachable or the answer does not match: the status stays as it is; the notification may still come.
      console.error(`order query for ${order.order_no} failed:`, err);
    } finally {
      await releaseOrderQuery(deps, order.id);
    }
  }
  return {
    order_no: current.order_no,
    kind: current.kind,
    status: current.status,
    amount_fen: current.amount_fen,
  };
}
