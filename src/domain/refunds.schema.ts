/**
 * WeChat refunds as members and staff see them (docs/money.md "WeChat refunds"): a refund of a WeChat-paid order
 * goes back to the member's WeChat through an outbox and has a state of its own.
 */
export type WechatRefundStatus =
  'pending' | 'processing' | 'succeeded' | 'closed' | 'abnormal' | 'abnormal_pending' | 'failed' | 'mismatch';

/** Where a refund WeChat could not pay out was redirected by staff. */
export type AbnormalRefundType = 'USER_BANK_CARD' | 'MERCHANT_BANK_CARD';

/** The latest WeChat refund of an order. */
export interface WechatRefundView {
  id: number;
  status: WechatRefundStatus;
  amount_fen: number;
  /** WeChat's word (or the last error) on a refund that did not succeed; staff only. */
  last_error?: string | null;
  /** Staff's redirection of an abnormal refund, if any. */
  abnormal_type?: AbnormalRefundType | null;
  created_at: string;
}

export const WECHAT_REFUND_LABELS: Record<WechatRefundStatus, string> = {
  pending: '退款中',
  processing: '退款中',
  succeeded: '已退回微信',
  closed: '退款关闭',
  abnormal: '退款异常',
  abnormal_pending: '退款中',
  failed: '退款失败',
  mismatch: '退款待核对',
};

/** The label of a succeeded refund that staff redirected after WeChat could not pay it out. */
export function refundLabel(r: Pick<WechatRefundView, 'status' | 'abnormal_type'>): string {
  if (r.status === 'succeeded' && r.abnormal_type === 'USER_BANK_CARD') return '已退回银行卡';
  if (r.status === 'succeeded' && r.abnormal_type === 'MERCHANT_BANK_CARD') return '已退回余额';
  return WECHAT_REFUND_LABELS[r.status];
}

/**
 * States staff may retry (level 1 and 2): closed and refused refunds are sent again; a mismatch is asked about
 * once more. An abnormal one is redirected instead (`abnormal` below).
 */
export const RETRYABLE_REFUND_STATUSES: readonly WechatRefundStatus[] = ['closed', 'failed', 'mismatch'];

export const isRetryableRefund = (s: WechatRefundStatus) => RETRYABLE_REFUND_STATUSES.includes(s);

/** States that need staff: shown in red. */
export const refundTone = (s: WechatRefundStatus) =>
  s === 'succeeded'
    ? 'text-success'
    : isRetryableRefund(s) || s === 'abnormal'
      ? 'text-error'
      : 'text-warning';

/** Answer of `POST /backend/merchant/refunds/:id/retry` and `.../abnormal`. */
export interface RefundRetryResult {
  refund: WechatRefundView;
}
