/**
 * WeChat Pay v3 wire shapes of the sandbox: its error answer, the Transaction and Refund JSON, and their limits.
 */
import { randomBytes } from 'node:crypto';
import type { sandbox_pay_refunds, sandbox_pay_transactions } from '../db/schema';
import { rfc3339China } from '../wechat/crypto';
import type { Refund, Transaction, TradeState } from '../wechat/types';

export type TxRow = typeof sandbox_pay_transactions.$inferSelect;
export type RefundRow = typeof sandbox_pay_refunds.$inferSelect;

export const MAX_SKEW_S = 300;
export const OUT_TRADE_NO_RE = /^[0-9A-Za-z_\-|*]{6,32}$/;
export const RFC3339_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;
export const STATE_DESC: Record<TradeState, string> = {
  SUCCESS: '支付成功',
  REFUND: '转入退款',
  NOTPAY: '订单未支付',
  CLOSED: '订单已关闭',
  REVOKED: '已撤销',
  USERPAYING: '用户支付中',
  PAYERROR: '支付失败',
};

/** An error answer of the sandbox, in WeChat Pay's `{code, message, detail?}` shape. */
export class SandboxPayError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 500,
    readonly code: string,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
  }
}

export function randomDigits(n: number): string {
  return Array.from(randomBytes(n), (b) => String(b % 10)).join('');
}

/** The Transaction as the v3 API shows it. */
export function transactionJson(row: TxRow): Transaction {
  const paid = row.trade_state === 'SUCCESS' || row.trade_state === 'REFUND';
  return {
    appid: row.appid,
    mchid: row.mchid,
    out_trade_no: row.out_trade_no,
    ...(row.transaction_id ? { transaction_id: row.transaction_id } : {}),
    trade_type: 'JSAPI',
    trade_state: row.trade_state,
    trade_state_desc: STATE_DESC[row.trade_state],
    ...(paid ? { bank_type: 'OTHERS' } : {}),
    ...(paid && row.attach !== null ? { attach: row.attach } : {}),
    ...(row.success_time ? { success_time: rfc3339China(row.success_time) } : {}),
    payer: { openid: row.openid },
    amount: paid
      ? { total: row.amount_total, payer_total: row.amount_total, currency: 'CNY', payer_currency: 'CNY' }
      : { total: row.amount_total, currency: 'CNY' },
  };
}

export function refundJson(row: RefundRow): Refund {
  return {
    refund_id: row.refund_id,
    out_refund_no: row.out_refund_no,
    transaction_id: row.transaction_id,
    out_trade_no: row.out_trade_no,
    channel: row.abnormal_type ? 'OTHER_BANKCARD' : 'ORIGINAL',
    user_received_account: row.received_account ?? '支付用户零钱',
    ...(row.success_time && row.status === 'SUCCESS' ? { success_time: rfc3339China(row.success_time) } : {}),
    create_time: rfc3339China(row.created_at),
    status: row.status,
    funds_account: 'AVAILABLE',
    amount: {
      total: row.amount_total,
      refund: row.amount_refund,
      payer_total: row.amount_total,
      payer_refund: row.amount_refund,
      settlement_refund: row.amount_refund,
      settlement_total: row.amount_total,
      discount_refund: 0,
      currency: 'CNY',
    },
  };
}
