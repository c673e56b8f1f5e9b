/** Applying a WeChat Pay transaction (notification or query answer) to its order, exactly once. */
import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { type Params, prebuilt } from '../../db/prebuilt';
import { members, orders, pay_notifications, wallets } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import type { Transaction } from '../../wechat/types';
import { beginSession, checkDeviceAvailable } from '../devices/sessions';
import type { Order, PaymentDeps } from './order';
import { dispatchLater } from './pay';
import { PAY_WINDOW_MS, requireWechat } from './prepay';
import { refundOrder } from './refund';
import { settleWechatPayment } from './settle';

/** A notification or query answer that does not match our order: refused, nothing changes. */
export class PaymentMismatchError extends Error {
  override readonly name = 'PaymentMismatchError';
}

export type ApplyResult = 'applied' | 'duplicate' | 'ignored';

/** The external wallets a WeChat payment moves, by id, found in the order's own statement (null: not opened yet). */
const externalId = (code: 'wechat' | 'promotion') => sql<number | null>`(select min(${wallets.id})
  from ${wallets} where ${wallets.kind} = 'external' and ${wallets.code} = ${code})`;

interface NotificationRecord {
  notification_id: string;
  out_trade_no: string;
  transaction_id: string | null;
  received_at: Date;
}

const lockOrderNoting = prebuilt((d, p: Params<NotificationRecord & { no: string }>) => {
  const noted = d.$with('noted').as(
    d
      .insert(pay_notifications)
      .values({
        notification_id: p.notification_id,
        out_trade_no: p.out_trade_no,
        transaction_id: p.transaction_id,
        received_at: p.received_at,
      })
      .onConflictDoNothing()
      .returning({ id: pay_notifications.id }),
  );
  return d
    .with(noted)
    .select({
      order: orders,
      openid: members.openid,
      first: sql<number | null>`(select ${noted.id} from ${noted})`,
      wechat: externalId('wechat'),
      promotion: externalId('promotion'),
    })
    .from(orders)
    .leftJoin(members, eq(members.id, orders.member_id))
    .where(eq(orders.order_no, p.no))
    .for('update', { of: orders });
});

/**
 * In one statement: the notification recorded (`pay_notifications`, first one per notification id; a later copy
 * inserts nothing), the transaction's order locked (FOR UPDATE) with its member's openid, and the external wallets'
 * ids. Then refuses (PaymentMismatchError, which rolls the record back) a transaction that is not for the order:
 * unknown order, not a WeChat order, another appid or mchid, another amount, another payer.
 */
async function lockMatchingOrder(
  tx: Tx,
  t: Transaction,
  pay: { appid: string; mchid: string },
  note: NotificationRecord,
) {
  const [row] = await lockOrderNoting(tx, { ...note, no: t.out_trade_no });
  const order = row?.order;
  if (!order) throw new PaymentMismatchError(`unknown out_trade_no ${t.out_trade_no}`);
  if (order.method !== 'wechat')
    throw new PaymentMismatchError(`order ${order.order_no} is not a WeChat order`);
  if (t.appid !== pay.appid || t.mchid !== pay.mchid) {
    throw new PaymentMismatchError(`appid/mchid ${t.appid}/${t.mchid} do not match`);
  }
  if (t.amount?.total !== order.amount_fen) {
    throw new PaymentMismatchError(`amount ${t.amount?.total} does not match order ${order.amount_fen}`);
  }
  if (order.member_id !== null && t.payer?.openid !== undefined && row.openid !== null) {
    if (t.payer.openid !== row.openid) {
      throw new PaymentMismatchError(`payer ${t.payer.openid} is not the order's member`);
    }
  }
  return { order, first: row.first !== null, wechat: row.wechat, promotion: row.promotion };
}

/**
 * Books a WeChat transaction reported SUCCESS (from a verified notification or our own order query). Checks it
 * against the order (appid, mchid, amount, payer), deduplicates by out_trade_no in `pay_notifications` inside the
 * same transaction, then settles: a recharge credits the wallet; a consume is split and starts its device, or, when
 * the device can no longer start, is refunded in full to the member's wallet at once.
 */
export async function applyWechatTransaction(
  deps: PaymentDeps,
  t: Transaction,
  source: { notification_id: string },
): Promise<{ result: ApplyResult; order: Order | undefined }> {
  const wechat = requireWechat(deps);
  if (t.trade_state !== 'SUCCESS') return { result: 'ignored', order: undefined };
  let sessionId: number | undefined;
  const out = await deps.db.transaction(async (tx) => {
    const { order, first, ...ext } = await lockMatchingOrder(tx, t, wechat.pay, {
      notification_id: source.notification_id,
      out_trade_no: t.out_trade_no,
      transaction_id: t.transaction_id ?? null,
      received_at: deps.now(),
    });
    if (!first || (order.status !== 'pending' && order.status !== 'closed')) {
      return { result: 'duplicate' as const, order };
    }
    const now = deps.now();
    // A closed order that WeChat still reports paid (prepay error, late payment) is booked the same way.
    // A recharge's booking is the transaction's last statement: it may carry the COMMIT.
    let after = await settleWechatPayment(
      tx,
      { ...order, status: 'pending' },
      { transaction_id: t.transaction_id ?? null, now },
      ext,
      { last: order.kind === 'recharge' },
    );
    if (order.kind === 'consume' && order.device_id !== null && order.minutes !== null) {
      const available = await checkDeviceAvailable(tx, order.device_id, now);
      if (available === 'ok') {
        try {
          const s = await beginSession(tx, {
            order_id: order.id,
            device_id: order.device_id,
            member_id: order.member_id,
            minutes: order.minutes,
            now,
          });
          sessionId = s.id;
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
        }
      }
      if (sessionId === undefined) {
        await refundOrder(tx, {
          order_id: order.id,
          amount_fen: order.amount_fen,
          reason: `设备${available === 'ok' ? '正在使用中' : '暂不可用'}，已全额退款`,
        });
        // The refund changed the order again: read it back.
        const [refunded] = await tx.select().from(orders).where(eq(orders.id, order.id));
        if (refunded) after = refunded;
      }
    }
    return { result: 'applied' as const, order: after };
  });
  dispatchLater(deps, sessionId);
  return out;
}

/** WeChat says the order was never paid and cannot be any more (closed, failed, or unpaid past the pay window). */
export function isDeadPayment(t: Transaction | null, order: Order, now: Date): boolean {
  const expired = now.getTime() > order.created_at.getTime() + PAY_WINDOW_MS + 60_000;
  if (!t) return expired;
  if (t.trade_state === 'CLOSED' || t.trade_state === 'REVOKED' || t.trade_state === 'PAYERROR') return true;
  return t.trade_state === 'NOTPAY' && expired;
}
