/**
 * WeChat's rule that refund requests of one order be at least a minute apart (docs/money.md "WeChat refunds"): the
 * worker sends a refund of an order only when no other request of that order (another refund, or an earlier number
 * of this one before a staff retry) went out in the last REFUND_SPACING_MS; otherwise the row waits until then.
 * A resend of the same out_refund_no is the same request and is not held back. The orders are locked while a pass
 * decides (`FOR NO KEY UPDATE SKIP LOCKED`), so two workers never both send for one order at once; an order locked
 * elsewhere is left for the next pass.
 */
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { orders, wechat_refunds } from '../../db/schema';
import type { WechatRefundRow } from './refund-outbox';

/** A minute, and a second of margin: the time is taken just before the request leaves. */
export const REFUND_SPACING_MS = 61_000;

export interface Spacing {
  /** Rows this pass sends now. */
  send: Set<number>;
  /** Rows that must wait, and until when. */
  later: Map<number, Date>;
}

export async function spaceRequests(tx: Tx, due: WechatRefundRow[], at: Date): Promise<Spacing> {
  const send = new Set(due.filter((r) => r.status === 'abnormal_pending').map((r) => r.id));
  const later = new Map<number, Date>();
  const pending = due.filter((r) => r.status === 'pending');
  if (pending.length === 0) return { send, later };
  const orderIds = [...new Set(pending.map((r) => r.order_id))];
  const locked = await tx
    .select({ id: orders.id })
    .from(orders)
    .where(inArray(orders.id, orderIds))
    .for('no key update', { skipLocked: true });
  const mine = new Set(locked.map((o) => o.id));
  const requests = await tx
    .select({
      id: wechat_refunds.id,
      order_id: wechat_refunds.order_id,
      last_request_at: wechat_refunds.last_request_at,
    })
    .from(wechat_refunds)
    .where(and(inArray(wechat_refunds.order_id, orderIds), isNotNull(wechat_refunds.last_request_at)));
  const chosen = new Map<number, Date>();
  for (const r of pending) {
    if (!mine.has(r.order_id)) continue;
    // This row's own last request counts only when it was under an earlier number (sent_at reset by a retry).
    const times = requests
      .filter((x) => x.order_id === r.order_id && (x.id !== r.id || r.sent_at === null))
      .map((x) => x.last_request_at!.getTime());
    const picked = chosen.get(r.order_id);
    if (picked) times.push(picked.getTime());
    const last = times.length > 0 ? Math.max(...times) : null;
    if (last !== null && at.getTime() - last < REFUND_SPACING_MS) {
      later.set(r.id, new Date(last + REFUND_SPACING_MS));
      continue;
    }
    send.add(r.id);
    chosen.set(r.order_id, at);
    await tx.update(wechat_refunds).set({ last_request_at: at }).where(eq(wechat_refunds.id, r.id));
  }
  return { send, later };
}
