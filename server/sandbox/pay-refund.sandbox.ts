/**
 * Refunds in the WeChat Pay v3 sandbox: the request checks WeChat makes, the refund row, its later notification.
 */
import { and, eq, sql } from 'drizzle-orm';
import { sandbox_pay_refunds, sandbox_pay_transactions } from '../db/schema';
import { randomHex, rfc3339China } from '../wechat/crypto';
import type { Refund } from '../wechat/types';
import { type SandboxContext } from './context';
import type { RefundRow, TxRow } from './pay-wire.sandbox';
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
  const outcome = parseRefundOutcome(tx.refund_outcome);
  if (outcome.error) throw new SandboxPayError(500, 'SYSTEM_ERROR', '系统超时，请稍后调用该接口重试');
  const now = new Date(ctx.now());
  const created = await insertRefund(ctx, tx, mchid, {
    outRefundNo,
    refundFen,
    reason: b.reason,
    now,
    outcome,
  });
  if (!created) throw new SandboxPayError(403, 'NOT_ENOUGH', '申请退款金额超过订单可退金额');
  if (typeof b.notify_url === 'string' && b.notify_url && !outcome.silent) {
    await queueRefundNotice(ctx, created, b.notify_url, outcome);
  }
  return { ...refundJson(created), status: 'PROCESSING' };
}

/** How this transaction's refunds end (`sandbox_pay_transactions.refund_outcome`, a comma list; docs/wechat.md). */
export interface RefundOutcome {
  final: 'SUCCESS' | 'CLOSED' | 'ABNORMAL';
  delayMs: number;
  silent: boolean;
  duplicate: boolean;
  error: boolean;
}

export const REFUND_OUTCOME_RE =
  /^(success|closed|abnormal|error|silent|duplicate|delay:\d{1,7})(,(success|closed|abnormal|error|silent|duplicate|delay:\d{1,7}))*$/;

export function parseRefundOutcome(v: string | null | undefined): RefundOutcome {
  const o: RefundOutcome = { final: 'SUCCESS', delayMs: 0, silent: false, duplicate: false, error: false };
  for (const part of (v ?? '').split(',')) {
    const [k, val] = part.split(':');
    if (k === 'closed') o.final = 'CLOSED';
    if (k === 'abnormal') o.final = 'ABNORMAL';
    if (k === 'silent') o.silent = true;
    if (k === 'duplicate') o.duplicate = true;
    if (k === 'error') o.error = true;
    if (k === 'delay') o.delayMs = Number(val);
  }
  return o;
}

/** Test switch: how the refunds of the transaction `outTradeNo` end from now on (null: SUCCESS at once). */
export async function setRefundOutcome(ctx: SandboxContext, outTradeNo: string, outcome: string | null) {
  if (outcome !== null && !REFUND_OUTCOME_RE.test(outcome)) throw new Error(`bad refund outcome ${outcome}`);
  await ctx.db
    .update(sandbox_pay_transactions)
    .set({ refund_outcome: outcome })
    .where(eq(sandbox_pay_transactions.out_trade_no, outTradeNo));
}

/**
 * The refund row, with the refundable remainder checked and reduced in one statement (concurrent refunds cannot
 * overdraw). A closed or abnormal refund gives nothing back, so it reduces nothing; a delayed one stays PROCESSING
 * until `settles_at`.
 */
async function insertRefund(
  ctx: SandboxContext,
  tx: TxRow,
  mchid: string,
  r: { outRefundNo: string; refundFen: number; reason: unknown; now: Date; outcome: RefundOutcome },
): Promise<RefundRow | undefined> {
  const { outcome, now, refundFen } = r;
  const counts = outcome.final === 'SUCCESS' ? refundFen : 0;
  const settlesAt = outcome.delayMs > 0 ? new Date(now.getTime() + outcome.delayMs) : null;
  return ctx.db.transaction(async (t) => {
    const [upd] = await t
      .update(sandbox_pay_transactions)
      .set({
        refunded_total: sql`${sandbox_pay_transactions.refunded_total} + ${counts}`,
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
    const [row] = await t
      .insert(sandbox_pay_refunds)
      .values({
        mchid,
        out_refund_no: r.outRefundNo,
        refund_id: `5030${randomHex(12)}`,
        out_trade_no: tx.out_trade_no,
        transaction_id: tx.transaction_id!,
        amount_refund: refundFen,
        amount_total: tx.amount_total,
        reason: typeof r.reason === 'string' ? r.reason.slice(0, 80) : null,
        status: settlesAt ? 'PROCESSING' : outcome.final,
        settles_at: settlesAt,
        final_status: outcome.final,
        success_time: outcome.final === 'SUCCESS' ? (settlesAt ?? now) : null,
        created_at: now,
      })
      .returning();
    return row;
  });
}

const EVENT_SUMMARY = { SUCCESS: '退款成功', CLOSED: '退款关闭', ABNORMAL: '退款异常' } as const;

/** The REFUND.* notification of a refund's final state, delivered when it settles (twice with `duplicate`). */
async function queueRefundNotice(
  ctx: SandboxContext,
  row: RefundRow,
  notifyUrl: string,
  outcome: RefundOutcome,
) {
  const final = outcome.final;
  const notice = {
    mchid: row.mchid,
    out_trade_no: row.out_trade_no,
    transaction_id: row.transaction_id,
    out_refund_no: row.out_refund_no,
    refund_id: row.refund_id,
    refund_status: final,
    ...(row.success_time ? { success_time: rfc3339China(row.success_time) } : {}),
    user_received_account: '支付用户零钱',
    amount: {
      total: row.amount_total,
      refund: row.amount_refund,
      payer_total: row.amount_total,
      payer_refund: row.amount_refund,
    },
  };
  const env = ctx.sender.envelope(notice, `REFUND.${final}`, 'refund', EVENT_SUMMARY[final]);
  const n = { body: JSON.stringify(env), notifyUrl, outTradeNo: row.out_trade_no, notificationId: env.id };
  await ctx.sender.enqueue(n, outcome.delayMs);
  if (outcome.duplicate) await ctx.sender.enqueue(n, outcome.delayMs);
  void ctx.sender.kick();
}

/** A refund by out_refund_no (`GET /v3/refund/domestic/refunds/{out_refund_no}`). */
export async function refundByNo(ctx: SandboxContext, mchid: string, outRefundNo: string): Promise<Refund> {
  const [row] = await ctx.db
    .select()
    .from(sandbox_pay_refunds)
    .where(and(eq(sandbox_pay_refunds.mchid, mchid), eq(sandbox_pay_refunds.out_refund_no, outRefundNo)));
  if (!row) throw new SandboxPayError(404, 'RESOURCE_NOT_EXISTS', '退款单不存在');
  if (row.status !== 'PROCESSING' || !row.settles_at || row.settles_at.getTime() > ctx.now())
    return refundJson(row);
  // A delayed refund reaches its final state once its time has come.
  const [settled] = await ctx.db
    .update(sandbox_pay_refunds)
    .set({ status: row.final_status ?? 'SUCCESS' })
    .where(and(eq(sandbox_pay_refunds.id, row.id), eq(sandbox_pay_refunds.status, 'PROCESSING')))
    .returning();
  return refundJson(settled ?? row);
}
