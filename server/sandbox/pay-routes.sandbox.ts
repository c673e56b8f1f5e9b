/**
 * The WeChat Pay v3 sandbox's HTTP face (mounted at `/backend/sandbox/wechatpay`): the v3 endpoints with WeChat's
 * signature check and signed answers, the cashier page standing in for `getBrandWCPayRequest`, and `_control`.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { parseJson } from '../lib/validate';
import { renderError } from '../lib/errors';
import { Hono, type Context } from 'hono';
import { formatFen } from '../../src/domain/money';
import { sandbox_pay_transactions } from '../db/schema';
import { randomHex } from '../wechat/crypto';
import type { JsapiPayParams, SandboxNotifyOptions } from '../wechat/types';
import { esc, isSafeReturnPath, page, withQuery, type SandboxContext } from './context';
import { STATE_DESC, SandboxPayError, transactionJson } from './pay-wire.sandbox';
import { applyAbnormalRefund } from './pay-abnormal-refund.sandbox';
import { REFUND_OUTCOME_RE } from './pay-refund.sandbox';
import type { SandboxPayService } from './pay.sandbox';

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
  refund_outcome: z.string().regex(REFUND_OUTCOME_RE, 'refund_outcome 格式不正确').optional(),
});

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

  app.post(
    '/v3/refund/domestic/refunds/:id/apply-abnormal-refund',
    v3(async (c, mchid, body) => {
      const serial = c.req.header('Wechatpay-Serial');
      return signed(
        c,
        200,
        await applyAbnormalRefund(ctx, mchid, c.req.param('id') ?? '', json(body), serial),
      );
    }),
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
        ...(b.refund_outcome !== undefined ? { refundOutcome: b.refund_outcome } : {}),
      });
      return c.json({ transaction: tx });
    } catch (e) {
      return errorAnswer(c, e);
    }
  });

  return app;
}
