/**
 * The WeChat Pay v3 sandbox (mounted at `/backend/sandbox/wechatpay`): JSAPI prepay, query, close, refunds, with
 * WeChat's request-signature check and signed answers, plus the cashier page that stands in for
 * `getBrandWCPayRequest` outside WeChat. Paying there sends a real signed, encrypted notification to notify_url.
 */
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { sandbox_pay_transactions } from '../db/schema';
import {
  AUTH_SCHEMA,
  nonceStr,
  parseAuthorization,
  paySignMessage,
  randomHex,
  requestMessage,
  responseMessage,
  rfc3339China,
  rsaSign,
  rsaVerify,
} from '../wechat/crypto';
import type { JsapiPayParams, Refund, SandboxNotifyOptions, Transaction } from '../wechat/types';
import { type SandboxContext } from './context';
import type { TxRow } from './pay-wire.sandbox';
import { MAX_SKEW_S, STATE_DESC, SandboxPayError, randomDigits, transactionJson } from './pay-wire.sandbox';
import { createRefund, refundByNo, setRefundOutcome } from './pay-refund.sandbox';
import { prepayParams } from './pay-prepay.sandbox';

/** Owns the sandbox's payment state machine: NOTPAY -> SUCCESS (once) -> REFUND, or NOTPAY -> CLOSED. */
export class SandboxPayService {
  constructor(private readonly ctx: SandboxContext) {}

  private get db() {
    return this.ctx.db;
  }

  /** Verifies `Authorization: WECHATPAY2-SHA256-RSA2048 …` over METHOD, request URI, timestamp, nonce, raw body. */
  verifyRequest(method: string, requestUri: string, authorization: string | undefined, body: string): string {
    const fail = (why: string) => new SandboxPayError(401, 'SIGN_ERROR', `签名错误：${why}`);
    if (!authorization) throw fail('缺少 Authorization 头');
    const a = parseAuthorization(authorization);
    if (!a) throw fail('Http头Authorization值格式错误');
    const { mchid, nonce_str, timestamp, serial_no, signature } = a;
    if (!mchid || !nonce_str || !timestamp || !serial_no || !signature) throw fail('Authorization 缺少字段');
    if (mchid !== this.ctx.keys.mchid) throw new SandboxPayError(400, 'MCH_NOT_EXISTS', '商户号不存在');
    if (serial_no !== this.ctx.keys.merchantSerialNo) throw fail('商户证书序列号不正确');
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(this.ctx.now() / 1000 - Number(timestamp)) > MAX_SKEW_S) {
      throw fail('时间戳与当前时间相差超过 5 分钟');
    }
    const message = requestMessage(method, requestUri, timestamp, nonce_str, body);
    if (!rsaVerify(message, signature, this.ctx.keys.merchantPublicKey)) throw fail('签名验证失败');
    return mchid;
  }

  /** Headers of a signed 2xx answer (WeChat signs `TS\nNONCE\nBODY\n` with the platform key). */
  signAnswer(body: string): Record<string, string> {
    const timestamp = String(Math.floor(this.ctx.now() / 1000));
    const nonce = nonceStr(32);
    return {
      'Request-ID': randomHex(16),
      'Wechatpay-Timestamp': timestamp,
      'Wechatpay-Nonce': nonce,
      'Wechatpay-Signature': rsaSign(
        responseMessage(timestamp, nonce, body),
        this.ctx.keys.platformPrivateKey,
      ),
      'Wechatpay-Serial': this.ctx.keys.platformSerial,
      'Wechatpay-Signature-Type': AUTH_SCHEMA,
    };
  }

  async prepay(mchidFromAuth: string, input: unknown): Promise<{ prepay_id: string }> {
    const { appid, mchid, description, outTradeNo, timeExpire, attach, notifyUrl, total, openid } =
      prepayParams(input, this.ctx.keys, mchidFromAuth);
    const paramsHash = createHash('sha256')
      .update(
        JSON.stringify([appid, mchid, description, outTradeNo, timeExpire, attach, notifyUrl, total, openid]),
      )
      .digest('hex');
    const stamp = rfc3339China(new Date(this.ctx.now())).replace(/\D/g, '').slice(0, 14);
    const inserted = await this.db
      .insert(sandbox_pay_transactions)
      .values({
        mchid,
        appid,
        out_trade_no: outTradeNo,
        prepay_id: `wx${stamp}${randomHex(10)}`,
        description,
        amount_total: total,
        openid,
        notify_url: notifyUrl,
        attach,
        time_expire: timeExpire,
        params_hash: paramsHash,
        trade_state: 'NOTPAY',
        created_at: new Date(this.ctx.now()),
      })
      .onConflictDoNothing()
      .returning();
    if (inserted[0]) return { prepay_id: inserted[0].prepay_id };
    // Same out_trade_no again: accepted only with identical parameters while unpaid (WeChat's rule).
    const existing = await this.byOutTradeNo(outTradeNo);
    if (!existing || existing.params_hash !== paramsHash) {
      throw new SandboxPayError(403, 'OUT_TRADE_NO_USED', '商户订单号重复');
    }
    if (existing.trade_state === 'SUCCESS' || existing.trade_state === 'REFUND') {
      throw new SandboxPayError(400, 'ORDERPAID', '该订单已支付');
    }
    if (existing.trade_state === 'CLOSED') throw new SandboxPayError(400, 'ORDER_CLOSED', '订单已关闭');
    return { prepay_id: existing.prepay_id };
  }

  async byOutTradeNo(outTradeNo: string): Promise<TxRow | undefined> {
    const [row] = await this.db
      .select()
      .from(sandbox_pay_transactions)
      .where(
        and(
          eq(sandbox_pay_transactions.mchid, this.ctx.keys.mchid),
          eq(sandbox_pay_transactions.out_trade_no, outTradeNo),
        ),
      );
    return row;
  }

  async byPrepayId(prepayId: string): Promise<TxRow | undefined> {
    const [row] = await this.db
      .select()
      .from(sandbox_pay_transactions)
      .where(eq(sandbox_pay_transactions.prepay_id, prepayId));
    return row;
  }

  async close(outTradeNo: string): Promise<void> {
    const row = await this.byOutTradeNo(outTradeNo);
    if (!row) throw new SandboxPayError(404, 'ORDER_NOT_EXIST', '订单不存在');
    if (row.trade_state === 'SUCCESS' || row.trade_state === 'REFUND') {
      throw new SandboxPayError(400, 'ORDERPAID', '订单已支付，不能关闭');
    }
    await this.db
      .update(sandbox_pay_transactions)
      .set({ trade_state: 'CLOSED' })
      .where(
        and(eq(sandbox_pay_transactions.id, row.id), eq(sandbox_pay_transactions.trade_state, 'NOTPAY')),
      );
  }

  /** Checks a JSAPI parameter set as WeChat's cashier would: our appid, RSA, a paySign by the merchant key. */
  verifyJsapi(p: Partial<JsapiPayParams>): string {
    if (p.appId !== this.ctx.keys.appid) throw new SandboxPayError(400, 'PARAM_ERROR', 'appId 不正确');
    if (p.signType !== 'RSA') throw new SandboxPayError(400, 'PARAM_ERROR', 'signType 必须是 RSA');
    if (!p.timeStamp || !/^\d{1,12}$/.test(p.timeStamp)) {
      throw new SandboxPayError(400, 'PARAM_ERROR', 'timeStamp 必须是秒级时间戳字符串');
    }
    if (!p.nonceStr || p.nonceStr.length > 32)
      throw new SandboxPayError(400, 'PARAM_ERROR', 'nonceStr 不正确');
    const m = /^prepay_id=(.+)$/.exec(p.package ?? '');
    if (!m) throw new SandboxPayError(400, 'PARAM_ERROR', 'package 必须是 prepay_id=…');
    const message = paySignMessage(p.appId, p.timeStamp, p.nonceStr, p.package!);
    if (!p.paySign || !rsaVerify(message, p.paySign, this.ctx.keys.merchantPublicKey)) {
      throw new SandboxPayError(401, 'SIGN_ERROR', '支付验证签名失败（paySign）');
    }
    return m[1]!;
  }

  /**
   * What 确认支付 does: NOTPAY -> SUCCESS exactly once, then the notification(s) are queued. A second confirm of a
   * paid transaction queues nothing new unless a switch asks for it.
   */
  async confirm(prepayId: string, opts: SandboxNotifyOptions = {}): Promise<Transaction> {
    const row = await this.byPrepayId(prepayId);
    if (!row) throw new SandboxPayError(404, 'ORDER_NOT_EXIST', '订单不存在');
    if (row.trade_state === 'CLOSED') throw new SandboxPayError(400, 'ORDER_CLOSED', '订单已关闭');
    if (row.time_expire && Date.parse(row.time_expire) <= this.ctx.now() && row.trade_state === 'NOTPAY') {
      throw new SandboxPayError(400, 'ORDER_CLOSED', '订单已超过支付截止时间');
    }
    const now = new Date(this.ctx.now());
    const [paid] = await this.db
      .update(sandbox_pay_transactions)
      .set({
        trade_state: 'SUCCESS',
        transaction_id: `4200${rfc3339China(now).replace(/\D/g, '').slice(0, 8)}${randomDigits(16)}`,
        success_time: now,
      })
      .where(and(eq(sandbox_pay_transactions.id, row.id), eq(sandbox_pay_transactions.trade_state, 'NOTPAY')))
      .returning();
    if (opts.refundOutcome !== undefined)
      await setRefundOutcome(this.ctx, row.out_trade_no, opts.refundOutcome);
    const current = paid ?? (await this.byPrepayId(prepayId))!;
    const tx = transactionJson(current);
    const firstTime = paid !== undefined;
    const wantsExtra = opts.duplicate || opts.probe || opts.wrongAmountFen !== undefined;
    if (opts.silent || (!firstTime && !wantsExtra)) return tx;
    await this.queuePaymentNotifications(current, tx, opts);
    void this.ctx.sender.kick();
    return tx;
  }

  private async queuePaymentNotifications(row: TxRow, tx: Transaction, opts: SandboxNotifyOptions) {
    const sender = this.ctx.sender;
    const delay = Math.max(0, opts.delayMs ?? 0);
    const base = { notifyUrl: row.notify_url, outTradeNo: row.out_trade_no };
    const success = { ...tx, trade_state: 'SUCCESS' as const, trade_state_desc: STATE_DESC.SUCCESS };
    if (opts.probe) {
      const env = sender.envelope(success, 'TRANSACTION.SUCCESS', 'transaction', '支付成功');
      await sender.enqueue(
        { ...base, body: JSON.stringify(env), notificationId: env.id, kind: 'probe' },
        delay,
      );
    }
    if (opts.wrongAmountFen !== undefined) {
      // A correctly signed notice whose amount differs from the order: the merchant must compare amounts.
      const fake = {
        ...success,
        amount: { ...success.amount!, total: opts.wrongAmountFen, payer_total: opts.wrongAmountFen },
      };
      const env = sender.envelope(fake, 'TRANSACTION.SUCCESS', 'transaction', '支付成功');
      await sender.enqueue({ ...base, body: JSON.stringify(env), notificationId: env.id }, delay);
      return;
    }
    const env = sender.envelope(success, 'TRANSACTION.SUCCESS', 'transaction', '支付成功');
    const body = JSON.stringify(env);
    await sender.enqueue({ ...base, body, notificationId: env.id }, delay);
    if (opts.duplicate) await sender.enqueue({ ...base, body, notificationId: env.id }, delay);
  }

  refund(mchid: string, input: unknown): Promise<Refund> {
    return createRefund(this.ctx, (n) => this.byOutTradeNo(n), mchid, input);
  }

  refundByNo(mchid: string, outRefundNo: string): Promise<Refund> {
    return refundByNo(this.ctx, mchid, outRefundNo);
  }
}
