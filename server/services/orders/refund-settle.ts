/**
 * Settling a WeChat refund from what WeChat says about it (the create answer, a verified REFUND.* notification, or
 * our own refund query): exactly once per refund, under the outbox row's lock. SUCCESS books the reversal in the
 * ledger (payment and split); CLOSED / ABNORMAL leave a state staff see and act on; PROCESSING waits. An answer that
 * does not match the row (another number, order or amount) is never settled: it is logged, counted, queried again
 * after a longer wait, and the third makes the row `mismatch` for staff (docs/money.md "WeChat refunds").
 */
import { eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { orders, wechat_refunds } from '../../db/schema';
import type { RefundStatus } from '../../wechat/types';
import { type Order, OrderMoneyError } from './order';
import { bookRefund } from './refund';
import type { WechatRefundRow } from './refund-outbox';

/** What WeChat says about one refund, from any of its three sources. */
export interface RefundReport {
  out_refund_no: string;
  status: RefundStatus;
  refund_id?: string;
  /** The refunded amount WeChat reports (fen); checked against ours. */
  refund_fen?: number;
  /** The order's total WeChat reports (fen); checked against the order. */
  total_fen?: number;
  out_trade_no?: string;
}

export type RefundApplyResult =
  'succeeded' | 'processing' | 'closed' | 'abnormal' | 'duplicate' | 'unknown' | 'mismatch';

/** Mismatched answers a refund may get before it is left to staff; the waits before asking again after each. */
export const MISMATCH_LIMIT = 3;
export const MISMATCH_BACKOFF_MS = [300_000, 1_800_000];

/** Rows WeChat's word may still move: on their way, or being redirected after an abnormal end. */
const IN_FLIGHT: readonly WechatRefundRow['status'][] = ['pending', 'processing', 'abnormal_pending'];

/** How long a processing refund waits before we ask WeChat: half its age, between 30 s and an hour. */
export function queryDelayMs(sentAt: Date | null, now: Date): number {
  const age = sentAt ? now.getTime() - sentAt.getTime() : 0;
  return Math.min(3_600_000, Math.max(30_000, Math.floor(age / 2)));
}

/** What in the report differs from our refund and its order, or null when it is about them. */
export function mismatchOf(report: RefundReport, row: WechatRefundRow, order: Order): string | null {
  if (report.out_refund_no !== row.out_refund_no)
    return `退款单号 ${report.out_refund_no}，本退款为 ${row.out_refund_no}`;
  if (report.out_trade_no !== undefined && report.out_trade_no !== order.order_no)
    return `订单号 ${report.out_trade_no}，本退款的订单为 ${order.order_no}`;
  if (report.refund_fen !== undefined && report.refund_fen !== row.amount_fen)
    return `退款金额 ${report.refund_fen} 分，本退款为 ${row.amount_fen} 分`;
  if (report.total_fen !== undefined && report.total_fen !== order.amount_fen)
    return `订单金额 ${report.total_fen} 分，本订单为 ${order.amount_fen} 分`;
  return null;
}

/** Counts a mismatched answer on a refund in flight: asked again later, or left to staff after the third. */
async function recordMismatch(tx: Tx, row: WechatRefundRow, why: string, now: Date): Promise<'mismatch'> {
  console.error(
    `refund ${row.out_refund_no} (order id ${row.order_id}): WeChat's answer does not match: ${why}`,
  );
  if (!IN_FLIGHT.includes(row.status)) return 'mismatch';
  const n = row.mismatches + 1;
  const wait = MISMATCH_BACKOFF_MS[n - 1];
  await tx
    .update(wechat_refunds)
    .set({
      mismatches: n,
      last_error: `微信返回的退款信息与本退款不符（${why}）`.slice(0, 300),
      updated_at: now,
      ...(n >= MISMATCH_LIMIT || wait === undefined
        ? { status: 'mismatch' as const }
        : { status: 'processing' as const, next_attempt_at: new Date(now.getTime() + wait) }),
    })
    .where(eq(wechat_refunds.id, row.id));
  return 'mismatch';
}

/**
 * Applies a report to its outbox row in one transaction: the row is locked first, so a notification, a duplicate
 * of it and a query answer arriving together book the refund once. `asked` is the out_refund_no the caller asked
 * WeChat about (the worker's send and query): an answer about another number is a mismatch, never applied to that
 * other row. A report for a refund already succeeded is a duplicate; one for an unknown number is 'unknown'.
 */
export async function applyRefundReport(
  db: Db,
  report: RefundReport,
  now: Date,
  asked?: string,
): Promise<RefundApplyResult> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(wechat_refunds)
      .where(eq(wechat_refunds.out_refund_no, asked ?? report.out_refund_no))
      .for('update');
    if (!row) return 'unknown';
    if (row.status === 'succeeded') return 'duplicate';
    const [order] = await tx.select().from(orders).where(eq(orders.id, row.order_id)).for('update');
    if (!order) throw new OrderMoneyError(`refund ${row.out_refund_no}: order ${row.order_id} not found`);
    const why = mismatchOf(report, row, order);
    if (why) return recordMismatch(tx, row, why, now);
    return applyStatus(tx, row, order, report, now);
  });
}

async function applyStatus(
  tx: Tx,
  row: WechatRefundRow,
  order: Order,
  report: RefundReport,
  now: Date,
): Promise<RefundApplyResult> {
  const refundId = report.refund_id ?? row.wechat_refund_id;
  if (report.status === 'SUCCESS') {
    // Redirected to the merchant's bank account: the money stayed with the operator, so the member gets it on
    // the wallet at this merchant instead (docs/decisions.md D22).
    const to = row.abnormal_type === 'MERCHANT_BANK_CARD' ? 'member_wallet' : 'payer';
    await bookRefund(tx, order, row.amount_fen, row.reason, to);
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
  if (!IN_FLIGHT.includes(row.status)) return 'duplicate';
  if (report.status === 'PROCESSING') {
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
  // An abnormal refund being redirected still reads ABNORMAL until WeChat takes the redirection up.
  if (row.status === 'abnormal_pending' && report.status === 'ABNORMAL') return 'duplicate';
  const status = report.status === 'CLOSED' ? 'closed' : 'abnormal';
  await tx
    .update(wechat_refunds)
    .set({
      status,
      wechat_refund_id: refundId,
      last_error: status === 'closed' ? '微信退款已关闭' : '用户的银行卡已作废或冻结等，原路退回失败',
      updated_at: now,
    })
    .where(eq(wechat_refunds.id, row.id));
  return status;
}
