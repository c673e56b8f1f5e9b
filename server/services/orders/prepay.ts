/** WeChat Pay prepay for an order: JSAPI parameters and the pay window. */
import { and, eq } from 'drizzle-orm';
import type { JsapiParams } from '../../../src/domain/api';
import { orders } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import type { Order, PaymentDeps } from './order';

export function requireWechat(deps: PaymentDeps): NonNullable<PaymentDeps['wechat']> {
  if (!deps.wechat) throw new HttpError(503, 'WECHAT_PAY_UNAVAILABLE', '微信支付暂不可用，请使用余额支付');
  return deps.wechat;
}

/** JSAPI parameters for a prepay id; in sandbox mode with the cashier page to open outside WeChat. */
export function jsapiFor(
  wechat: NonNullable<PaymentDeps['wechat']>,
  prepayId: string,
  returnPath: string,
): JsapiParams {
  const params = wechat.pay.jsapiParams(prepayId);
  const cashier =
    wechat.mode === 'sandbox' && wechat.sandbox ? wechat.sandbox.cashierUrl(params, returnPath) : undefined;
  return cashier ? { ...params, cashier_url: cashier } : { ...params };
}

/** Asks WeChat for a prepay id; a failure closes the order (nothing was paid) and answers 502. */
export async function prepay(
  deps: PaymentDeps,
  wechat: NonNullable<PaymentDeps['wechat']>,
  order: Order,
  openid: string,
  description: string,
  returnPath: string,
): Promise<JsapiParams> {
  let prepayId: string;
  try {
    const res = await wechat.pay.prepayJsapi({
      out_trade_no: order.order_no,
      description: description.slice(0, 120),
      amount_fen: order.amount_fen,
      openid,
      time_expire: new Date(deps.now().getTime() + PAY_WINDOW_MS),
    });
    prepayId = res.prepay_id;
  } catch (err) {
    console.error(`prepay of ${order.order_no} failed:`, err);
    await deps.db
      .update(orders)
      .set({ status: 'closed', failure_reason: '微信支付下单失败' })
      .where(and(eq(orders.id, order.id), eq(orders.status, 'pending')));
    throw new HttpError(502, 'WECHAT_PAY_ERROR', '微信支付下单失败，请稍后再试');
  }
  await deps.db.update(orders).set({ wechat_prepay_id: prepayId }).where(eq(orders.id, order.id));
  return jsapiFor(wechat, prepayId, returnPath);
}

/** How long a WeChat payment may take (time_expire of the prepay). */
export const PAY_WINDOW_MS = 15 * 60_000;
