/**
 * WeChat's apply-abnormal-refund in the Pay v3 sandbox (`POST /v3/refund/domestic/refunds/{refund_id}/
 * apply-abnormal-refund`): a refund that ended ABNORMAL (the payer's card cancelled or frozen) is redirected to a
 * debit card of the payer (USER_BANK_CARD: bank code, card number and name, the last two encrypted with the
 * platform public key, Wechatpay-Serial naming it) or to the merchant's settlement bank account
 * (MERCHANT_BANK_CARD). The answer is the refund, PROCESSING; its query then says SUCCESS, paid to the new account.
 * A repeat of the same redirection answers the refund as it stands.
 */
import { and, eq, sql } from 'drizzle-orm';
import { sandbox_pay_refunds, sandbox_pay_transactions } from '../db/schema';
import { rsaOaepDecrypt } from '../wechat/crypto';
import type { Refund } from '../wechat/types';
import type { SandboxContext } from './context';
import { platformKeysOf } from './keys';
import { refundJson, SandboxPayError } from './pay-wire.sandbox';

/** The banks whose debit cards an abnormal refund may go to (WeChat's bank codes). */
const BANKS: Record<string, string> = {
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
};

const param = (field: string, rule: string, value: unknown) =>
  new SandboxPayError(400, 'PARAM_ERROR', `输入源“/body/${field}”${rule}`, {
    location: 'body',
    value: value ?? null,
  });

/** Where the money goes: the payer's card (its bank and last four digits, decrypted as WeChat would) or the merchant. */
function receivedAccount(
  ctx: SandboxContext,
  b: Record<string, unknown>,
  serial: string | undefined,
): string {
  if (b.type === 'MERCHANT_BANK_CARD') return '商户结算银行账户';
  const bank = typeof b.bank_type === 'string' ? BANKS[b.bank_type] : undefined;
  if (!bank) throw param('bank_type', '开户银行不支持（仅支持列出银行的借记卡）', b.bank_type);
  const key = platformKeysOf(ctx.keys).find((k) => k.serial === serial);
  if (!key) throw new SandboxPayError(400, 'PARAM_ERROR', 'Wechatpay-Serial 与加密所用的微信支付公钥不符');
  const plain = (field: string) => {
    const v = b[field];
    if (typeof v !== 'string' || !v) throw param(field, '退款至用户时必填', v);
    try {
      return rsaOaepDecrypt(v, key.privateKey);
    } catch {
      throw param(field, '解密失败（须用微信支付公钥 RSAES-OAEP 加密）', null);
    }
  };
  const card = plain('bank_account');
  if (!/^\d{10,30}$/.test(card)) throw param('bank_account', '银行卡号格式不正确', null);
  if (!plain('real_name').trim()) throw param('real_name', '收款用户姓名不能为空', null);
  return `${bank}借记卡${card.slice(-4)}`;
}

export async function applyAbnormalRefund(
  ctx: SandboxContext,
  mchid: string,
  refundId: string,
  input: unknown,
  serial: string | undefined,
): Promise<Refund> {
  const b = (input ?? {}) as Record<string, unknown>;
  if (b.type !== 'USER_BANK_CARD' && b.type !== 'MERCHANT_BANK_CARD')
    throw param('type', '异常退款处理方式必须是 USER_BANK_CARD 或 MERCHANT_BANK_CARD', b.type);
  const [row] = await ctx.db
    .select()
    .from(sandbox_pay_refunds)
    .where(and(eq(sandbox_pay_refunds.mchid, mchid), eq(sandbox_pay_refunds.refund_id, refundId)));
  if (!row) throw new SandboxPayError(404, 'RESOURCE_NOT_EXISTS', '退款单不存在');
  if (b.out_refund_no !== row.out_refund_no) throw param('out_refund_no', '与退款单不符', b.out_refund_no);
  if (row.abnormal_type === b.type) return { ...refundJson(row), status: 'PROCESSING' };
  if (row.status !== 'ABNORMAL')
    throw new SandboxPayError(400, 'INVALID_REQUEST', '退款单状态不是退款异常，不能发起异常退款');
  const account = receivedAccount(ctx, b, serial);
  const now = new Date(ctx.now());
  const done = await ctx.db.transaction(async (t) => {
    // An abnormal refund counted nothing against the order; now it pays out, it does.
    await t
      .update(sandbox_pay_transactions)
      .set({ refunded_total: sql`${sandbox_pay_transactions.refunded_total} + ${row.amount_refund}` })
      .where(eq(sandbox_pay_transactions.out_trade_no, row.out_trade_no));
    const [r] = await t
      .update(sandbox_pay_refunds)
      .set({
        status: 'SUCCESS',
        final_status: 'SUCCESS',
        settles_at: null,
        success_time: now,
        abnormal_type: b.type as 'USER_BANK_CARD' | 'MERCHANT_BANK_CARD',
        received_account: account,
      })
      .where(and(eq(sandbox_pay_refunds.id, row.id), eq(sandbox_pay_refunds.status, 'ABNORMAL')))
      .returning();
    return r;
  });
  if (!done) throw new SandboxPayError(400, 'INVALID_REQUEST', '退款单状态已变化，请查询后重试');
  return { ...refundJson(done), status: 'PROCESSING' };
}
