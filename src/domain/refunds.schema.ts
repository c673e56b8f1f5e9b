/**
 * WeChat refunds as members and staff see them (docs/money.md "WeChat refunds"): a refund of a WeChat-paid order
 * goes back to the member's WeChat through an outbox and has a state of its own.
 */
import { z } from 'zod';

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

/**
 * Banks whose debit cards WeChat's apply-abnormal-refund pays out to (WeChat's bank codes), for USER_BANK_CARD.
 */
export const ABNORMAL_REFUND_BANKS = {
  ICBC_DEBIT: '工商银行',
  ABC_DEBIT: '农业银行',
  CCB_DEBIT: '建设银行',
  BOC_DEBIT: '中国银行',
  COMM_DEBIT: '交通银行',
  CMB_DEBIT: '招商银行',
  PSBC_DEBIT: '邮储银行',
  SPDB_DEBIT: '浦发银行',
  CITIC_DEBIT: '中信银行',
  CEB_DEBIT: '光大银行',
  CMBC_DEBIT: '民生银行',
  CIB_DEBIT: '兴业银行',
  GDB_DEBIT: '广发银行',
  PAB_DEBIT: '平安银行',
} as const;

export type AbnormalRefundBank = keyof typeof ABNORMAL_REFUND_BANKS;
const BANK_CODES = Object.keys(ABNORMAL_REFUND_BANKS) as [AbnormalRefundBank, ...AbnormalRefundBank[]];

/** Body of `POST /backend/merchant/refunds/:id/abnormal`: where a refund WeChat could not pay out goes instead. */
export const abnormalRefundSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('USER_BANK_CARD'),
    bank_type: z.enum(BANK_CODES, '请选择开户银行（仅支持列出的银行的借记卡）'),
    bank_account: z
      .string()
      .transform((s) => s.replace(/\s+/g, ''))
      .pipe(z.string().regex(/^\d{10,30}$/, '请输入正确的银行卡号（10-30 位数字）')),
    real_name: z.string().trim().min(1, '请输入收款人姓名').max(50, '收款人姓名最多 50 个字'),
  }),
  z.object({ type: z.literal('MERCHANT_BANK_CARD') }),
]);
export type AbnormalRefundInput = z.input<typeof abnormalRefundSchema>;
