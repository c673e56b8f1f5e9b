/**
 * The WeChat refund outbox (docs/money.md "WeChat refunds", docs/decisions.md D22): a refund of a WeChat-paid order
 * is decided inside the caller's transaction by writing a `wechat_refunds` row; nothing leaves the process until
 * that transaction commits. The worker (refund-worker.ts) sends it, the notification or a query settles it
 * (refund-settle.ts), and only then does the ledger book it.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { orders, wechat_refunds } from '../../db/schema';
import { newOrderNo, type Order, OrderMoneyError } from './order';

export type WechatRefundRow = typeof wechat_refunds.$inferSelect;
export type WechatRefundStatus = WechatRefundRow['status'];

/** Refund statuses staff may retry: WeChat closed it, could not pay it out, or refused the request. */
export const RETRYABLE_REFUND_STATUSES = ['closed', 'abnormal', 'failed'] as const;

/**
 * `F` + UTC yyyyMMddHHmmss + 10 random digits: unique per mchid (WeChat's out_refund_no: 1-64 of
 * [0-9A-Za-z_-|*@]), and not guessable from a neighbour.
 */
export function newRefundNo(now: Date): string {
  return `F${newOrderNo('consume', now).slice(1)}`;
}

/** What the order's refunds decided but not yet booked add up to (every status but succeeded). */
export async function outstandingRefundFen(tx: Tx, orderId: number): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`coalesce(sum(${wechat_refunds.amount_fen}), 0)`.mapWith(Number) })
    .from(wechat_refunds)
    .where(and(eq(wechat_refunds.order_id, orderId), ne(wechat_refunds.status, 'succeeded')));
  return row?.n ?? 0;
}

/**
 * Decides a refund of `r` fen of a WeChat-paid order (locked by the caller): refuses more than is left (booked
 * refunds and refunds on their way included), writes the outbox row (`pending`, due now) and marks the order
 * refunded (money on its way back). The ledger is untouched until WeChat reports success.
 */
export async function decideWechatRefund(tx: Tx, order: Order, r: number, reason: string): Promise<void> {
  const outstanding = await outstandingRefundFen(tx, order.id);
  const after = order.refunded_fen + outstanding + r;
  if (after > order.amount_fen) {
    throw new OrderMoneyError(
      `refund of ${r} on order ${order.order_no} exceeds what is left (${order.amount_fen - order.refunded_fen - outstanding})`,
    );
  }
  const now = new Date();
  await tx.insert(wechat_refunds).values({
    order_id: order.id,
    out_refund_no: newRefundNo(now),
    amount_fen: r,
    reason: reason.slice(0, 200),
    status: 'pending',
  });
  await tx
    .update(orders)
    .set({
      status: 'refunded',
      ...(after === order.amount_fen && order.failure_reason === null
        ? { failure_reason: reason.slice(0, 200) }
        : {}),
    })
    .where(eq(orders.id, order.id));
}

/**
 * Staff retry of a refund WeChat closed, could not pay out, or refused (level 1/2, scoped by the caller): the row
 * goes back to `pending`, due now. A refused request is resent with the same out_refund_no (WeChat's rule for a
 * failed submission); a closed or abnormal one is final at WeChat under its number, so the retry takes a new one.
 * Returns the row as it is now, or null when it is not in a retryable state (the caller answers 409).
 */
export async function retryWechatRefund(
  tx: Tx,
  refundId: number,
  now: Date,
): Promise<{ before: WechatRefundRow; after: WechatRefundRow } | null> {
  const [row] = await tx.select().from(wechat_refunds).where(eq(wechat_refunds.id, refundId)).for('update');
  if (!row || !(RETRYABLE_REFUND_STATUSES as readonly string[]).includes(row.status)) return null;
  const [after] = await tx
    .update(wechat_refunds)
    .set({
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      updated_at: now,
      ...(row.status === 'failed'
        ? {}
        : { out_refund_no: newRefundNo(now), wechat_refund_id: null, sent_at: null }),
    })
    .where(eq(wechat_refunds.id, row.id))
    .returning();
  return after ? { before: row, after } : null;
}
