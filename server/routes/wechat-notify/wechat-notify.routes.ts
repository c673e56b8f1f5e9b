/**
 * POST /backend/wechat/pay/notify: WeChat Pay's payment notifications (POST .../refund-notify: refund results, the
 * same envelope; either path accepts either kind). The raw body is verified (platform key
 * signature over timestamp, nonce and body) and decrypted by the Pay client before anything is read; the
 * transaction is then checked against our order and booked once (services/orders/notify.ts). Answers: 204 when accepted
 * or already booked (WeChat stops retrying); 401 FAIL for a bad signature (WeChat retries a genuine one); 400 FAIL
 * for a notice that does not match our order. A refused notice changes nothing.
 */
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../context';
import { applyWechatTransaction, PaymentMismatchError } from '../../services/orders';
import { paymentDeps, type PaymentDeps } from '../../services/orders';
import { applyRefundReport } from '../../services/orders/refund-settle';
import { WechatPayVerifyError, type PayNotification } from '../../wechat/types';

/** Notification bodies are small JSON envelopes; anything bigger is not from WeChat. */
const MAX_NOTIFY_BYTES = 64 * 1024;

export function notifyRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  const handler = async (c: Context<AppEnv>) => {
    const deps = paymentDeps(c.var.deps);
    if (!deps.wechat) return c.json({ code: 'FAIL', message: '未配置微信支付' }, 503);
    const raw = await c.req.text();
    if (Buffer.byteLength(raw, 'utf8') > MAX_NOTIFY_BYTES)
      return c.json({ code: 'FAIL', message: '通知内容过大' }, 413);
    let notification;
    try {
      notification = deps.wechat.pay.parseNotification(raw, c.req.raw.headers);
    } catch (err) {
      if (err instanceof WechatPayVerifyError) {
        return c.json({ code: 'FAIL', message: `通知验签失败（${err.reason}）` }, 401);
      }
      return c.json({ code: 'FAIL', message: '通知内容无法解析' }, 400);
    }
    if (notification.kind === 'refund') return refundNotice(c, deps, notification);
    try {
      await applyWechatTransaction(deps, notification.transaction, { notification_id: notification.id });
    } catch (err) {
      if (err instanceof PaymentMismatchError) {
        console.warn(`payment notification ${notification.id} refused: ${err.message}`);
        return c.json({ code: 'FAIL', message: '通知与订单不符' }, 400);
      }
      throw err;
    }
    return c.body(null, 204);
  };
  r.post('/notify', handler);
  r.post('/refund-notify', handler);
  return r;
}

/**
 * A verified REFUND.* notification settles its outbox row (services/orders/refund-settle.ts): SUCCESS books the
 * reversal once; a duplicate finds the row succeeded and changes nothing. 204 also for a refund number we no longer
 * know (replaced by a staff retry), so WeChat stops resending it; 400 FAIL when it does not match our refund (the
 * refund is not settled; the mismatch is logged and counted on it, the third leaves it to staff).
 */
async function refundNotice(
  c: Context<AppEnv>,
  deps: PaymentDeps,
  n: Extract<PayNotification, { kind: 'refund' }>,
): Promise<Response> {
  const result = await applyRefundReport(
    deps.db,
    {
      out_refund_no: n.refund.out_refund_no,
      status: n.refund.refund_status,
      refund_id: n.refund.refund_id,
      refund_fen: n.refund.amount?.refund,
      total_fen: n.refund.amount?.total,
      out_trade_no: n.refund.out_trade_no,
    },
    deps.now(),
  );
  if (result === 'unknown') console.warn(`refund notification ${n.id}: unknown ${n.refund.out_refund_no}`);
  // Logged and counted on the refund by applyRefundReport; never settled.
  if (result === 'mismatch') return c.json({ code: 'FAIL', message: '通知与退款单不符' }, 400);
  return c.body(null, 204);
}
