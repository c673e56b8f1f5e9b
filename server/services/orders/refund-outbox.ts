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
import { MISMATCH_LIMIT } from './refund-settle';

export type WechatRefundRow = typeof wechat_refunds.$inferSelect;
export type WechatRefundStatus = WechatRefundRow['status'];

/**
 * Refund statuses staff may retry: WeChat closed it or refused the request (sent again), or its answers did not
 * match it (asked again). An abnormal one is redirected instead (`redirectAbnormalRefund`).
 */
export const RETRYABLE_REFUND_STATUSES = ['closed', 'failed', 'mismatch'] as const;

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
 * Staff retry (level 1/2, scoped by the caller). A refused request goes back to `pending` with the same
 * out_refund_no (WeChat's rule for a failed submission); a closed one is final at WeChat under its number, so it
 * goes back with a new one (sent a minute after the last request of the order at the earliest, refund-spacing.ts).
 * A mismatch is asked about once more under its number (`processing`, due now): a third mismatch again if WeChat
 * still disagrees. Returns the row before and after, or null when it is not retryable (the caller answers 409).
 */
export async function retryWechatRefund(
  tx: Tx,
  refundId: number,
  now: Date,
): Promise<{ before: WechatRefundRow; after: WechatRefundRow } | null> {
  const [row] = await tx.select().from(wechat_refunds).where(eq(wechat_refunds.id, refundId)).for('update');
  if (!row || !(RETRYABLE_REFUND_STATUSES as readonly string[]).includes(row.status)) return null;
  const again = { attempts: 0, next_attempt_at: now, last_error: null, updated_at: now };
  const set =
    row.status === 'mismatch'
      ? { ...again, status: 'processing' as const, mismatches: MISMATCH_LIMIT - 1 }
      : row.status === 'failed'
        ? { ...again, status: 'pending' as const }
        : {
            ...again,
            status: 'pending' as const,
            out_refund_no: newRefundNo(now),
            wechat_refund_id: null,
            sent_at: null,
          };
  const [after] = await tx.update(wechat_refunds).set(set).where(eq(wechat_refunds.id, row.id)).returning();
  return after ? { before: row, after } : null;
}

/** Staff's redirection of an abnormal refund, its sensitive fields already encrypted for WeChat. */
export type AbnormalRedirect =
  | { type: 'MERCHANT_BANK_CARD' }
  | {
      type: 'USER_BANK_CARD';
      bank_type: string;
      /** Card number and holder's name encrypted with WeChat Pay's public key of `key_serial`. */
      bank_account: string;
      real_name: string;
      key_serial: string;
    };

/**
 * Redirects a refund WeChat could not pay out (`abnormal`: the member's card cancelled or frozen) through WeChat's
 * apply-abnormal-refund: to the member's debit card, or to the merchant's bank account (then booked to the
 * member's wallet at the merchant when WeChat reports success). The row becomes `abnormal_pending`, due now; the
 * worker sends it. Null when the row is not abnormal or WeChat never gave it a refund id (the caller answers 409).
 */
export async function redirectAbnormalRefund(
  tx: Tx,
  refundId: number,
  to: AbnormalRedirect,
  now: Date,
): Promise<{ before: WechatRefundRow; after: WechatRefundRow } | null> {
  const [row] = await tx.select().from(wechat_refunds).where(eq(wechat_refunds.id, refundId)).for('update');
  if (!row || row.status !== 'abnormal' || !row.wechat_refund_id) return null;
  const card = to.type === 'USER_BANK_CARD' ? to : null;
  const [after] = await tx
    .update(wechat_refunds)
    .set({
      status: 'abnormal_pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      updated_at: now,
      abnormal_type: to.type,
      abnormal_bank_type: card?.bank_type ?? null,
      abnormal_bank_account: card?.bank_account ?? null,
      abnormal_real_name: card?.real_name ?? null,
      abnormal_key_serial: card?.key_serial ?? null,
    })
    .where(eq(wechat_refunds.id, row.id))
    .returning();
  return after ? { before: row, after } : null;
}
