/**
 * WeChat refunds as members and staff see them (docs/money.md "WeChat refunds"): a refund of a WeChat-paid order
 * goes back to the member's WeChat through an outbox and has a state of its own.
 */

export type WechatRefundStatus = 'pending' | 'processing' | 'succeeded' | 'closed' | 'abnormal' | 'failed';

/** The latest WeChat refund of an order. */
export interface WechatRefundView {
  id: number;
  status: WechatRefundStatus;
  amount_fen: number;
  /** WeChat's word (or the last error) on a refund that did not succeed; staff only. */
  last_error?: string | null;
  created_at: string;
}

export const WECHAT_REFUND_LABELS: Record<WechatRefundStatus, string> = {
  pending: '退款中',
  processing: '退款中',
  succeeded: '已退回微信',
  closed: '退款关闭',
  abnormal: '退款异常',
  failed: '退款失败',
};

/** States staff may retry (level 1 and 2). */
export const RETRYABLE_REFUND_STATUSES: readonly WechatRefundStatus[] = ['closed', 'abnormal', 'failed'];

export const isRetryableRefund = (s: WechatRefundStatus) => RETRYABLE_REFUND_STATUSES.includes(s);

/** daisyUI text colour of a refund state. */
export const refundTone = (s: WechatRefundStatus) =>
  s === 'succeeded' ? 'text-success' : isRetryableRefund(s) ? 'text-error' : 'text-warning';

/** Answer of `POST /backend/merchant/refunds/:id/retry`. */
export interface RefundRetryResult {
  refund: WechatRefundView;
}
