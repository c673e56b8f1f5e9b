/**
 * The WeChat Pay v3 sandbox (mounted at `/backend/sandbox/wechatpay`): JSAPI prepay, query, close, refunds, with
 * WeChat's request-signature check and signed answers, plus the cashier page that stands in for
 * `getBrandWCPayRequest` outside WeChat. Paying there sends a real signed, encrypted notification to notify_url.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { parseJson } from '../lib/validate';
import { renderError } from '../lib/errors';
import { Hono, type Context } from 'hono';
import { formatFen } from '../../src/domain/money';
import { sandbox_pay_refunds, sandbox_pay_transactions } from '../db/schema';
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
import type { JsapiPayParams, Refund, SandboxNotifyOptions, Transaction, TradeState } from '../wechat/types';
import { esc, isSafeReturnPath, page, withQuery, type SandboxContext } from './context';

const switchInt = z.number().int().min(0).max(600_000);
/** The body of `_control`: the signed JSAPI parameters of one order, and the test switches. */
const ControlSchema = z.object({
  action: z.literal('confirm', 'action 只支持 confirm'),
  appId: z.string().max(64),
  timeStamp: z.string().max(16),
  nonceStr: z.string().max(64),
  package: z.string().max(128),
  signType: z.literal('RSA', 'signType 必须是 RSA'),
  paySign: z.string().max(1024),
  duplicate: z.boolean().optional(),
  probe: z.boolean().optional(),
  silent: z.boolean().optional(),
  wrong_amount_fen: switchInt.optional(),
  delay_ms: switchInt.optional(),
});

type TxRow = typeof sandbox_pay_transactions.$inferSelect;
type RefundRow = typeof sandbox_pay_refunds.$inferSelect;

const MAX_SKEW_S = 300;
const OUT_TRADE_NO_RE = /^[0-9A-Za-z_\-|*]{6,32}$/;
const RFC3339_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;
const STATE_DESC: Record<TradeState, string> = {
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

function randomDigits(n: number): string {
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

function refundJson(row: RefundRow): Refund {
  return {
    refund_id: row.refund_id,
    out_refund_no: row.out_refund_no,
    transaction_id: row.transaction_id,
    out_trade_no: row.out_trade_no,
    channel: 'ORIGINAL',
    user_received_account: '支付用户零钱',
    ...(row.success_time ? { success_time: rfc3339China(row.success_time) } : {}),
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
    const b = (input ?? {}) as Record<string, unknown>;
    const param = (field: string, label: string, value: unknown, rule: string) =>
      new SandboxPayError(400, 'PARAM_ERROR', `输入源“/body/${field}”映射到值字段“${label}”${rule}`, {
        location: 'body',
        value: value ?? null,
      });
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const appid = str(b.appid);
    const mchid = str(b.mchid);
    if (!appid) throw param('appid', '应用ID', b.appid, '必填字符串');
    if (!mchid) throw param('mchid', '直连商户号', b.mchid, '必填字符串');
    if (mchid !== mchidFromAuth || mchid !== this.ctx.keys.mchid || appid !== this.ctx.keys.appid) {
      throw new SandboxPayError(400, 'APPID_MCHID_NOT_MATCH', 'AppID和mch_id不匹配');
    }
    const description = str(b.description);
    if (!description || [...description].length > 127) {
      throw param('description', '商品描述', b.description, '长度必须在 1 到 127 之间');
    }
    const outTradeNo = str(b.out_trade_no);
    if (!outTradeNo || !OUT_TRADE_NO_RE.test(outTradeNo)) {
      throw param('out_trade_no', '商户订单号', b.out_trade_no, '必须是 6-32 位数字、大小写字母或 _-|*');
    }
    const timeExpire = b.time_expire === undefined ? null : str(b.time_expire);
    if (timeExpire === undefined || (timeExpire !== null && !RFC3339_RE.test(timeExpire))) {
      throw param(
        'time_expire',
        '交易结束时间',
        b.time_expire,
        '字符串规则校验失败，字符串必须是符合 RFC3339 日期时间格式',
      );
    }
    const attach = b.attach === undefined ? null : str(b.attach);
    if (attach === undefined || (attach !== null && [...attach].length > 128)) {
      throw param('attach', '附加数据', b.attach, '长度不能超过 128');
    }
    const notifyUrl = str(b.notify_url);
    let notifyOk: boolean;
    try {
      const u = new URL(notifyUrl ?? '');
      notifyOk =
        (u.protocol === 'https:' || u.protocol === 'http:') && u.search === '' && !notifyUrl!.includes('?');
    } catch {
      notifyOk = false;
    }
    if (!notifyUrl || !notifyOk)
      throw param('notify_url', '通知地址', b.notify_url, '必须是可访问的 URL，且不能携带参数');
    const amount = (b.amount ?? {}) as Record<string, unknown>;
    const total = amount.total;
    if (typeof total !== 'number' || !Number.isSafeInteger(total) || total <= 0 || total > 2_147_483_647) {
      throw param('amount/total', '总金额', total, '必须是正整数（单位：分）');
    }
    if (amount.currency !== undefined && amount.currency !== 'CNY') {
      throw param('amount/currency', '货币类型', amount.currency, '只支持 CNY');
    }
    const payer = (b.payer ?? {}) as Record<string, unknown>;
    const openid = str(payer.openid);
    if (!openid || openid.length > 128) throw param('payer/openid', '用户标识', payer.openid, '必填字符串');

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

  async refund(mchid: string, input: unknown): Promise<Refund> {
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
      [tx] = await this.db
        .select()
        .from(sandbox_pay_transactions)
        .where(eq(sandbox_pay_transactions.transaction_id, b.transaction_id));
    } else if (typeof b.out_trade_no === 'string') {
      tx = await this.byOutTradeNo(b.out_trade_no);
    } else {
      throw param('out_trade_no', 'transaction_id 与 out_trade_no 必填其一', null);
    }
    if (!tx || tx.mchid !== mchid) throw new SandboxPayError(404, 'RESOURCE_NOT_EXISTS', '订单不存在');
    const [already] = await this.db
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
    const now = new Date(this.ctx.now());
    // The refundable remainder is checked and reduced in one statement, so concurrent refunds cannot overdraw.
    const created = await this.db.transaction(async (t) => {
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
      const env = this.ctx.sender.envelope(notice, 'REFUND.SUCCESS', 'refund', '退款成功');
      await this.ctx.sender.enqueue({
        body: JSON.stringify(env),
        notifyUrl: b.notify_url,
        outTradeNo: created.out_trade_no,
        notificationId: env.id,
      });
      void this.ctx.sender.kick();
    }
    return { ...refundJson(created), status: 'PROCESSING' };
  }

  async refundByNo(mchid: string, outRefundNo: string): Promise<Refund> {
    const [row] = await this.db
      .select()
      .from(sandbox_pay_refunds)
      .where(and(eq(sandbox_pay_refunds.mchid, mchid), eq(sandbox_pay_refunds.out_refund_no, outRefundNo)));
    if (!row) throw new SandboxPayError(404, 'RESOURCE_NOT_EXISTS', '退款单不存在');
    return refundJson(row);
  }
}

function parseNotifySwitches(v: string | undefined): SandboxNotifyOptions {
  const opts: SandboxNotifyOptions = {};
  for (const part of (v ?? '').split(',')) {
    const [k, val] = part.split(':');
    if (k === 'duplicate') opts.duplicate = true;
    if (k === 'probe') opts.probe = true;
    if (k === 'silent') opts.silent = true;
    if (k === 'wrong_amount' && val && /^\d{1,9}$/.test(val)) opts.wrongAmountFen = Number(val);
    if (k === 'delay' && val && /^\d{1,7}$/.test(val)) opts.delayMs = Number(val);
  }
  return opts;
}

/** Owns the sandbox's Pay v3 routes and cashier page. */
export function paySandboxRoutes(ctx: SandboxContext, service: SandboxPayService): Hono {
  const app = new Hono();
  // Bad input to a sandbox route is a 4xx in the API's error shape, also where the sandbox runs on its own.
  app.onError((err, c) => renderError(err, c));

  const requestUri = (c: Context) => {
    const u = new URL(c.req.url);
    return `${u.pathname}${u.search}`;
  };
  const errorAnswer = (c: Context, e: unknown) => {
    if (e instanceof SandboxPayError) {
      return c.json(
        { code: e.code, message: e.message, ...(e.detail !== undefined ? { detail: e.detail } : {}) },
        e.status,
        { 'Request-ID': randomHex(16) },
      );
    }
    console.error('wechatpay sandbox:', e);
    return c.json({ code: 'SYSTEM_ERROR', message: '系统错误，请用相同参数重新调用' }, 500);
  };
  const signed = (c: Context, status: 200 | 204, payload: unknown) => {
    const body = status === 204 ? '' : JSON.stringify(payload);
    const headers = service.signAnswer(body);
    if (status === 204) return c.body(null, 204, headers);
    return c.body(body, 200, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
  };
  /** Every /v3 call: raw body, verified Authorization, then the handler. */
  const v3 =
    (handler: (c: Context, mchid: string, body: string) => Promise<Response>) =>
    async (c: Context): Promise<Response> => {
      try {
        const body = c.req.method === 'GET' ? '' : await c.req.text();
        const mchid = service.verifyRequest(c.req.method, requestUri(c), c.req.header('Authorization'), body);
        return await handler(c, mchid, body);
      } catch (e) {
        return errorAnswer(c, e);
      }
    };
  const json = (body: string): unknown => {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      throw new SandboxPayError(400, 'PARAM_ERROR', '请求体不是合法的 JSON', { location: 'body' });
    }
  };
  const requireMchidQuery = (c: Context, mchid: string) => {
    if (c.req.query('mchid') !== mchid) {
      throw new SandboxPayError(
        400,
        'PARAM_ERROR',
        '输入源“/query/mchid”映射到值字段“直连商户号”必填，且须与签名商户号一致',
        {
          location: 'query',
          value: c.req.query('mchid') ?? null,
        },
      );
    }
  };

  app.post(
    '/v3/pay/transactions/jsapi',
    v3(async (c, mchid, body) => signed(c, 200, await service.prepay(mchid, json(body)))),
  );

  app.get(
    '/v3/pay/transactions/out-trade-no/:no',
    v3(async (c, mchid) => {
      requireMchidQuery(c, mchid);
      const row = await service.byOutTradeNo(c.req.param('no') ?? '');
      if (!row) throw new SandboxPayError(404, 'ORDER_NOT_EXIST', '订单不存在');
      return signed(c, 200, transactionJson(row));
    }),
  );

  app.get(
    '/v3/pay/transactions/id/:id',
    v3(async (c, mchid) => {
      requireMchidQuery(c, mchid);
      const [row] = await ctx.db
        .select()
        .from(sandbox_pay_transactions)
        .where(eq(sandbox_pay_transactions.transaction_id, c.req.param('id') ?? ''));
      if (!row) throw new SandboxPayError(404, 'ORDER_NOT_EXIST', '订单不存在');
      return signed(c, 200, transactionJson(row));
    }),
  );

  app.post(
    '/v3/pay/transactions/out-trade-no/:no/close',
    v3(async (c, mchid, body) => {
      const b = json(body) as { mchid?: unknown };
      if (b?.mchid !== mchid) {
        throw new SandboxPayError(400, 'PARAM_ERROR', '输入源“/body/mchid”映射到值字段“直连商户号”必填', {
          location: 'body',
          value: b?.mchid ?? null,
        });
      }
      await service.close(c.req.param('no') ?? '');
      return signed(c, 204, null);
    }),
  );

  app.post(
    '/v3/refund/domestic/refunds',
    v3(async (c, mchid, body) => signed(c, 200, await service.refund(mchid, json(body)))),
  );

  app.get(
    '/v3/refund/domestic/refunds/:no',
    v3(async (c, mchid) => signed(c, 200, await service.refundByNo(mchid, c.req.param('no') ?? ''))),
  );

  // ---------------------------------------------------------------- cashier (stands in for getBrandWCPayRequest)

  const cashierError = (c: Context, message: string, back?: string) =>
    c.html(
      page(
        '微信支付（沙箱）',
        `<div class="card"><h1>无法支付</h1><p class="error">${esc(message)}</p>${
          back ? `<a class="btn secondary" href="${esc(back)}">返回</a>` : ''
        }</div>`,
      ),
      400,
    );

  type CashierFields = Partial<JsapiPayParams> & { return?: string; notify?: string };
  async function checkCashier(f: CashierFields) {
    const ret = f.return ?? '/';
    if (!isSafeReturnPath(ret)) throw new SandboxPayError(400, 'PARAM_ERROR', 'return 必须是本站的相对路径');
    const prepayId = service.verifyJsapi(f);
    const row = await service.byPrepayId(prepayId);
    if (!row) throw new SandboxPayError(404, 'ORDER_NOT_EXIST', '订单不存在或 prepay_id 已失效');
    return { ret, row };
  }
  const jsapiKeys = [
    'appId',
    'timeStamp',
    'nonceStr',
    'package',
    'signType',
    'paySign',
    'return',
    'notify',
  ] as const;

  app.get('/cashier', async (c) => {
    const q = c.req.query() as CashierFields;
    let checked: Awaited<ReturnType<typeof checkCashier>>;
    try {
      checked = await checkCashier(q);
    } catch (e) {
      return cashierError(c, (e as Error).message);
    }
    const { ret, row } = checked;
    const back = withQuery(ret, { order_no: row.out_trade_no });
    if (row.trade_state !== 'NOTPAY') {
      return cashierError(c, `该订单${STATE_DESC[row.trade_state]}`, back);
    }
    const hidden = jsapiKeys
      .filter((k) => q[k] !== undefined)
      .map((k) => `<input type="hidden" name="${k}" value="${esc(String(q[k]))}">`)
      .join('');
    return c.html(
      page(
        '微信支付（沙箱）',
        `<div class="card"><span class="badge">沙箱</span>
<p class="muted" style="text-align:center">${esc(row.description)}</p>
<div class="amount" data-testid="cashier-amount">${esc(formatFen(row.amount_total))}</div>
<p class="muted" style="text-align:center">商户订单号 ${esc(row.out_trade_no)}</p>
<form method="post" action="cashier/confirm">${hidden}<button class="primary" type="submit">确认支付</button></form>
<form method="post" action="cashier/cancel">${hidden}<button class="secondary" type="submit">取消</button></form>
</div><p class="muted">本地沙箱代替微信收银台：确认支付后，沙箱向商户的 notify_url 发送签名并加密的支付通知。</p>`,
      ),
    );
  });

  const formFields = async (c: Context): Promise<CashierFields> => {
    const form = await c.req.parseBody();
    const out: Record<string, string> = {};
    for (const k of jsapiKeys) if (typeof form[k] === 'string') out[k] = form[k] as string;
    return out as CashierFields;
  };

  app.post('/cashier/confirm', async (c) => {
    const f = await formFields(c);
    try {
      const { ret, row } = await checkCashier(f);
      await service.confirm(row.prepay_id, parseNotifySwitches(f.notify));
      return c.redirect(withQuery(ret, { order_no: row.out_trade_no }), 303);
    } catch (e) {
      return cashierError(c, (e as Error).message);
    }
  });

  app.post('/cashier/cancel', async (c) => {
    const f = await formFields(c);
    try {
      const { ret, row } = await checkCashier(f);
      return c.redirect(withQuery(ret, { order_no: row.out_trade_no, pay: 'cancel' }), 303);
    } catch (e) {
      return cashierError(c, (e as Error).message);
    }
  });

  // ---------------------------------------------------------------- test switches (sandbox mode only)

  /**
   * `POST /_control {action:'confirm', appId, timeStamp, nonceStr, package, signType, paySign, duplicate?, probe?,
   * wrong_amount_fen?, delay_ms?, silent?}`: what 确认支付 does, with the test switches. Like the cashier it takes
   * only the signed JSAPI parameters the member's own page holds, so knowing an order number confirms nothing.
   */
  app.post('/_control', async (c) => {
    const b = await parseJson(c, ControlSchema);
    try {
      const prepayId = service.verifyJsapi(b);
      if (!(await service.byPrepayId(prepayId)))
        return c.json({ code: 'NOT_FOUND', message: '订单不存在' }, 404);
      const tx = await service.confirm(prepayId, {
        duplicate: b.duplicate === true,
        probe: b.probe === true,
        silent: b.silent === true,
        ...(b.wrong_amount_fen !== undefined ? { wrongAmountFen: b.wrong_amount_fen } : {}),
        ...(b.delay_ms !== undefined ? { delayMs: b.delay_ms } : {}),
      });
      return c.json({ transaction: tx });
    } catch (e) {
      return errorAnswer(c, e);
    }
  });

  return app;
}
