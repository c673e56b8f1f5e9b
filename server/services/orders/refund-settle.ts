/**
 * Settling a WeChat refund from what WeChat says about it (the create answer, a verified REFUND.* notification, or
 * our own refund query): exactly once per refund, under the outbox row's lock. SUCCESS books the reversal in the
 * ledger (payment and split); CLOSED / ABNORMAL leave a state staff see and may retry; PROCESSING waits.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orders, wechat_refunds } from '../../db/schema';
import type { RefundStatus } from '../../wechat/types';
import { OrderMoneyError } from './order';
import { bookRefund } from './refund';

/** What WeChat says about one refund, from any of its three sources. */
export interface RefundReport {
  out_refund_no: string;
  status: RefundStatus;
  refund_id?: string;
  /** The refunded amount WeChat reports (fen); checked against ours. */
  refund_fen?: number;
  out_trade_no?: string;
}

/** A report that does not match our refund (another order, another amount): refused, nothing changes. */
export class RefundMismatchError extends Error {
  override readonly name = 'RefundMismatchError';
}

export type RefundApplyResult = 'succeeded' | 'processing' | 'closed' | 'abnormal' | 'duplicate' | 'unknown';

/** How long a processing refund waits before we ask WeChat: half its age, between 30 s and an hour. */
export function queryDelayMs(sentAt: Date | null, now: Date): number {
  const age = sentAt ? now.getTime() - sentAt.getTime() : 0;
  return Math.min(3_600_000, Math.max(30_000, Math.floor(age / 2)));
}

/**
 * Applies a report to its outbox row in one transaction: the row is locked first, so a notification, a duplicate
 * of it and a query answer arriving together book the refund once. A report for a refund already succeeded is a
 * duplicate; one for an unknown out_refund_no is 'unknown' (nothing to do).
 */
export async function applyRefundReport(db: Db, report: RefundReport, now: Date): Promise<RefundApplyResult> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(wechat_refunds)
      .where(eq(wechat_refunds.out_refund_no, report.out_refund_no))
      .for('update');
    if (!row) return 'unknown';
    if (row.status === 'succeeded') return 'duplicate';
    const [order] = await tx.select().from(orders).where(eq(orders.id, row.order_id)).for('update');
    if (!order) throw new OrderMoneyError(`refund ${row.out_refund_no}: order ${row.order_id} not found`);
    if (report.out_trade_no !== undefined && report.out_trade_no !== order.order_no)
      throw new RefundMismatchError(`refund ${row.out_refund_no} is not of order ${report.out_trade_no}`);
    if (report.refund_fen !== undefined && report.refund_fen !== row.amount_fen)
      throw new RefundMismatchError(
        `refund ${row.out_refund_no}: ${report.refund_fen} is not ${row.amount_fen}`,
      );
    const refundId = report.refund_id ?? row.wechat_refund_id;
    if (report.status === 'SUCCESS') {
      await bookRefund(tx, order, row.amount_fen, row.reason);
      await tx
        .update(wechat_refunds)
        .set({
          status: 'succeeded',
          succeeded_at: now,
          wechat_refund_id: refundId,
          last_error: null,
          updated_at: now,
        })
        .where(eq(wechat_refunds.id, row.id));
      return 'succeeded';
    }
    if (report.status === 'PROCESSING') {
      if (row.status !== 'pending' && row.status !== 'processing') return 'duplicate';
      await tx
        .update(wechat_refunds)
        .set({
          status: 'processing',
          wechat_refund_id: refundId,
          next_attempt_at: new Date(now.getTime() + queryDelayMs(row.sent_at, now)),
          updated_at: now,
        })
        .where(eq(wechat_refunds.id, row.id));
      return 'processing';
    }
    if (row.status !== 'pending' && row.status !== 'processing') return 'duplicate';
    const status = report.status === 'CLOSED' ? 'closed' : 'abnormal';
    await tx
      .update(wechat_refunds)
      .set({
        status,
        wechat_refund_id: refundId,
        last_error: status === 'closed' ? '微信退款已关闭' : '微信退款异常（用户银行卡作废或冻结等）',
        updated_at: now,
      })
      .where(eq(wechat_refunds.id, row.id));
    return status;
  });
}
