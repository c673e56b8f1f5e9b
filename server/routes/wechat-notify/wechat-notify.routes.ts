/**
 * POST /backend/wechat/pay/notify: WeChat Pay's payment notifications. The raw body is verified (platform key
 * signature over timestamp, nonce and body) and decrypted by the Pay client before anything is read; the
 * transaction is then checked against our order and booked once (services/orders/notify.ts). Answers: 204 when accepted
 * or already booked (WeChat stops retrying); 401 FAIL for a bad signature (WeChat retries a genuine one); 400 FAIL
 * for a notice that does not match our order. A refused notice changes nothing.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../../context';
import { applyWechatTransaction, PaymentMismatchError } from '../../services/orders';
import { paymentDeps } from '../../services/orders';
import { WechatPayVerifyError } from '../../wechat/types';

/** Notification bodies are small JSON envelopes; anything bigger is not from WeChat. */
const MAX_NOTIFY_BYTES = 64 * 1024;

export function notifyRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.post('/notify', async (c) => {
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
    // Refund results: refunds are credited to the wallet at once (docs/money.md), nothing to book.
    if (notification.kind !== 'transaction') return c.body(null, 204);
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
  });
  return r;
}
