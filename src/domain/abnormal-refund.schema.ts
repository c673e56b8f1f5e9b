/**
 * Staff's redirection of a WeChat refund that could not be paid out (退款异常), with WeChat's apply-abnormal-refund
 * (docs/money.md "WeChat refunds"): the body of `POST /backend/merchant/refunds/:id/abnormal`, shared by the
 * server and the staff sheet. Apart from refunds.schema.ts so the member's screens do not load it.
 */
import { z } from 'zod';

/**
 * Banks whose debit cards WeChat's apply-abnormal-refund pays out to (WeChat's bank codes), for USER_BANK_CARD.
 * WeChat's page of that API (pay.weixin.qq.com/docs/merchant/apis/refund/refunds/create-abnormal-refund.html,
 * `bank_type`) also names 宁波银行, with its code in WeChat's 银行类型 table; that table's row could not be read
 * from a WeChat source here (third-party SDKs spell it `NBCB_DEBIT`), so Ningbo Bank stays out until its code is
 * confirmed from WeChat's own table: a wrong code would only be refused by WeChat (PARAM_ERROR, back to 退款异常).
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
