/**
 * Staff actions on a WeChat refund that did not go through (docs/money.md "WeChat refunds"), levels 1 and 2 (a
 * merchant only its own orders: another's answers 404), each with an audit row in the same transaction; the outbox
 * worker talks to WeChat after commit.
 * - `POST /backend/merchant/refunds/:id/retry`: a closed or refused refund is sent again, a mismatch asked about
 *   again; 409 `REFUND_NOT_RETRYABLE` otherwise.
 * - `POST /backend/merchant/refunds/:id/abnormal`: a refund WeChat could not pay out (abnormal) is redirected with
 *   WeChat's apply-abnormal-refund, to the member's debit card (bank, card number, name: the last two encrypted
 *   for WeChat before they are stored, never kept in clear nor logged) or to the merchant's bank account (then
 *   booked to the member's wallet here); 409 `REFUND_NOT_ABNORMAL` otherwise.
 */
import { eq } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { abnormalRefundSchema } from '../../../src/domain/abnormal-refund.schema';
import type { RefundRetryResult } from '../../../src/domain/refunds.schema';
import { merchantScope, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import type { Tx } from '../../db/client';
import { orders, wechat_refunds } from '../../db/schema';
import { conflict, forbidden, notFound } from '../../lib/errors';
import { parseJson, parseParam } from '../../lib/validate';
import { writeAudit } from '../../services/audit';
import {
  type AbnormalRedirect,
  redirectAbnormalRefund,
  retryWechatRefund,
  type WechatRefundRow,
} from '../../services/orders/refund-outbox';

type Change = { before: WechatRefundRow; after: WechatRefundRow } | null;

/** Finds the refund as the staff member may see it, applies `change` and audits it, in one transaction. */
async function act(
  c: Context<AppEnv>,
  action: string,
  change: (tx: Tx, id: number, now: Date) => Promise<Change>,
  refused: () => Error,
): Promise<Response> {
  const staff = staffOf(c);
  if (staff.level > 2) throw forbidden('仅平台管理员和商户可以处理退款');
  const { db, now } = c.var.deps;
  const id = parseParam(c, 'id');
  const own = merchantScope(staff);
  const refund = await db.transaction(async (tx) => {
    const [found] = await tx
      .select({ merchant_id: orders.merchant_id, order_no: orders.order_no })
      .from(wechat_refunds)
      .innerJoin(orders, eq(orders.id, wechat_refunds.order_id))
      .where(eq(wechat_refunds.id, id));
    if (!found || (own !== null && found.merchant_id !== own)) throw notFound('退款不存在');
    const done = await change(tx, id, now());
    if (!done) throw refused();
    const { before, after } = done;
    await writeAudit(tx, staff, {
      action,
      entity: 'wechat_refund',
      entity_id: id,
      merchant_id: found.merchant_id,
      before: { status: before.status, out_refund_no: before.out_refund_no },
      after: { status: after.status, out_refund_no: after.out_refund_no, abnormal_type: after.abnormal_type },
      extra: { order_no: found.order_no },
    });
    return after;
  });
  c.var.deps.refunds?.kick().catch(() => undefined);
  const body: RefundRetryResult = {
    refund: {
      id: refund.id,
      status: refund.status,
      amount_fen: refund.amount_fen,
      last_error: refund.last_error,
      abnormal_type: refund.abnormal_type,
      created_at: refund.created_at.toISOString(),
    },
  };
  return c.json(body);
}

export function refundsRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireStaff('merchant.members'));

  r.post('/:id/retry', (c) =>
    act(c, 'refund.retry', retryWechatRefund, () =>
      conflict('REFUND_NOT_RETRYABLE', '该退款不是关闭、失败或待核对状态，无需重试'),
    ),
  );

  r.post('/:id/abnormal', async (c) => {
    const input = await parseJson(c, abnormalRefundSchema);
    const pay = c.var.deps.wechat?.pay;
    if (!pay) throw conflict('WECHAT_NOT_CONFIGURED', '未配置微信支付');
    let to: AbnormalRedirect = { type: 'MERCHANT_BANK_CARD' };
    if (input.type === 'USER_BANK_CARD') {
      // Encrypted at once with WeChat Pay's newest platform key: only WeChat can read what is stored.
      const { serial, ciphertexts } = pay.encryptSensitive([input.bank_account, input.real_name]);
      to = {
        type: 'USER_BANK_CARD',
        bank_type: input.bank_type,
        bank_account: ciphertexts[0]!,
        real_name: ciphertexts[1]!,
        key_serial: serial,
      };
    }
    return act(
      c,
      'refund.abnormal',
      (tx, id, now) => redirectAbnormalRefund(tx, id, to, now),
      () => conflict('REFUND_NOT_ABNORMAL', '该退款不是退款异常状态，无法发起异常退款'),
    );
  });
  return r;
}
