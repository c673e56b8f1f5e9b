/**
 * Refunds in the WeChat Pay v3 sandbox: the request checks WeChat makes, the refund row, its later notification.
 */
import { and, eq, sql } from 'drizzle-orm';
import { sandbox_pay_refunds, sandbox_pay_transactions } from '../db/schema';
import { randomHex, rfc3339China } from '../wechat/crypto';
import type { Refund } from '../wechat/types';
import { type SandboxContext } from './context';
import type { TxRow } from './pay-wire.sandbox';
import { SandboxPayError, refundJson } from './pay-wire.sandbox';

/**
 * A refund request (`POST /v3/refund/domestic/refunds`): WeChat's checks on the body and the transaction, then a
 * PROCESSING refund whose result is notified later, as WeChat does.
 */
export async function createRefund(
  ctx: SandboxContext,
  byOutTradeNo: (outTradeNo: string) => Promise<TxRow | undefined>,
  mchid: string,
  input: unknown,
): Promise<Refund> {
  const b = (input ?? {}) as Record<string, unknown>;
  const param = (field: string, rule: string, value: unknown) =>
    new SandboxPayError(400, 'PARAM_ERROR', `输入源“/body/${field}”${rule}`, {
      location: 'body',
      value: value ?? null,
    });
  const outRefundNo = typeof b.out_refund_no === 'string' ? b.out_refund_no : '';
  if (!/^[0-9A-Za-z_\-|*@]{1,64}$/.test(outRefundNo))
    throw param('out_refund_no', '商户退款单号格式不正确', b.out_refund_no);
  const amount = (b.amount ?? {}) as Record<string, unknown>;
  const refundFen = amount.refund;
  const totalFen = amount.total;
  if (typeof refundFen !== 'number' || !Number.isSafeInteger(refundFen) || refundFen <= 0) {
    throw param('amount/refund', '退款金额必须是正整数（分）', refundFen);
  }
  if (typeof totalFen !== 'number' || !Number.isSafeInteger(totalFen) || totalFen <= 0) {
    throw param('amount/total', '原订单金额必须是正整数（分）', totalFen);
  }
  if (amount.currency !== 'CNY') throw param('amount/currency', '退款币种必须是 CNY', amount.currency);
  let tx: TxRow | undefined;
  if (typeof b.transaction_id === 'string') {
    [tx] = await ctx.db
      .select()
      .from(sandbox_pay_transactions)
      .where(eq(sandbox_pay_transactions.transaction_id, b.transaction_id));
  } else if (typeof b.out_trade_no === 'string') {
    tx = await byOutTradeNo(b.out_trade_no);
  } else {
    throw param('out_trade_no', 'transaction_id 与 out_trade_no 必填其一', null);
  }
  if (!tx || tx.mchid !== mchid) throw new SandboxPayError(404, 'RESOURCE_NOT_EXISTS', '订单不存在');
  const [already] = await ctx.db
    .select()
    .from(sandbox_pay_refunds)
    .where(and(eq(sandbox_pay_refunds.mchid, mchid), eq(sandbox_pay_refunds.out_refund_no, outRefundNo)));
  if (already) {
    if (already.out_trade_no !== tx.out_trade_no || already.amount_refund !== refundFen) {
      throw new SandboxPayError(400, 'INVALID_REQUEST', '商户退款单号已被使用，且参数不一致');
    }
    return refundJson(already);
  }
  if (tx.trade_state !== 'SUCCESS' && tx.trade_state !== 'REFUND') {
    throw new SandboxPayError(400, 'INVALID_REQUEST', '订单未支付，不能退款');
  }
  if (totalFen !== tx.amount_total) throw param('amount/total', '原订单金额与订单不一致', totalFen);
  const now = new Date(ctx.now());
  // The refundable remainder is checked and reduced in one statement, so concurrent refunds cannot overdraw.
  const created = await ctx.db.transaction(async (t) => {
    const [upd] = await t
      .update(sandbox_pay_transactions)
      .set({
        refunded_total: sql`${sandbox_pay_transactions.refunded_total} + ${refundFen}`,
        trade_state: 'REFUND',
      })
      .where(
        and(
          eq(sandbox_pay_transactions.id, tx.id),
          sql`${sandbox_pay_transactions.refunded_total} + ${refundFen} <= ${sandbox_pay_transactions.amount_total}`,
        ),
      )
      .returning({ id: sandbox_pay_transactions.id });
    if (!upd) return undefined;
    const [r] = await t
      .insert(sandbox_pay_refunds)
      .values({
        mchid,
        out_refund_no: outRefundNo,
        refund_id: `5030${randomHex(12)}`,
        out_trade_no: tx.out_trade_no,
        transaction_id: tx.transaction_id!,
        amount_refund: refundFen,
        amount_total: tx.amount_total,
        reason: typeof b.reason === 'string' ? b.reason.slice(0, 80) : null,
        // The sandbox settles at once; the answer still says PROCESSING, as WeChat's usually does.
        status: 'SUCCESS',
        success_time: now,
        created_at: now,
      })
      .returning();
    return r;
  });
  if (!created) throw new SandboxPayError(403, 'NOT_ENOUGH', '申请退款金额超过订单可退金额');
  if (typeof b.notify_url === 'string' && b.notify_url) {
    const notice = {
      mchid,
      out_trade_no: created.out_trade_no,
      transaction_id: created.transaction_id,
      out_refund_no: created.out_refund_no,
      refund_id: created.refund_id,
      refund_status: 'SUCCESS',
      success_time: rfc3339China(now),
      user_received_account: '支付用户零钱',
      amount: {
        total: created.amount_total,
        refund: refundFen,
        payer_total: created.amount_total,
        payer_refund: refundFen,
      },
    };
    const env = ctx.sender.envelope(notice, 'REFUND.SUCCESS', 'refund', '退款成功');
    await ctx.sender.enqueue({
      body: JSON.stringify(env),
      notifyUrl: b.notify_url,
      outTradeNo: created.out_trade_no,
      notificationId: env.id,
    });
    void ctx.sender.kick();
  }
  return { ...refundJson(created), status: 'PROCESSING' };
}

/** A refund by out_refund_no (`GET /v3/refund/domestic/refunds/{out_refund_no}`). */
export async function refundByNo(ctx: SandboxContext, mchid: string, outRefundNo: string): Promise<Refund> {
  const [row] = await ctx.db
    .select()
    .from(sandbox_pay_refunds)
    .where(and(eq(sandbox_pay_refunds.mchid, mchid), eq(sandbox_pay_refunds.out_refund_no, outRefundNo)));
  if (!row) throw new SandboxPayError(404, 'RESOURCE_NOT_EXISTS', '退款单不存在');
  return refundJson(row);
}
