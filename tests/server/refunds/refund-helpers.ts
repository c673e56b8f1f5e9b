/** Helpers of the WeChat refund suites: a WeChat pay driven through the sandbox, the outbox and wallet snapshots. */
import { asc, eq } from 'drizzle-orm';
import {
  device_sessions,
  orders,
  sandbox_pay_refunds,
  wallets,
  wechat_refunds,
} from '../../../server/db/schema';
import type { ControllableGateway } from '../../../server/services/devices/gateway';
import type { PayResponse, ServicePrice } from '../../../src/domain/api';
import { postJson, type TestWorld, withCookie } from '../test-app';

export interface PaidDevice {
  id: number;
  venue_id: number;
  serial: string;
}

export async function firstPrice(w: TestWorld, venueId: number): Promise<ServicePrice> {
  const r = await w.json<{ items: ServicePrice[] }>(`/backend/api/venue-service-prices?venue_id=${venueId}`);
  return r.body.items[0]!;
}

/**
 * Pays for `device` by WeChat and confirms at the sandbox (with `refundOutcome` for the refunds of that payment),
 * delivers the notification and lets the device answer; the refund worker does NOT run. With `refuse`, the device
 * refuses the start, so the order is refunded in full.
 */
export async function payByWechat(
  w: TestWorld,
  cookie: string,
  device: PaidDevice,
  opts: { refuse?: boolean; refundOutcome?: string } = {},
): Promise<{ order_no: string; order_id: number; amount_fen: number }> {
  const price = await firstPrice(w, device.venue_id);
  const res = await w.json<PayResponse>(
    '/backend/user/pay',
    withCookie(
      cookie,
      postJson({ device_id: device.id, venue_id: device.venue_id, price_id: price.id, method: 'wechat' }),
    ),
  );
  if (res.status !== 201 || !res.body.jsapi)
    throw new Error(`pay: ${res.status} ${JSON.stringify(res.body)}`);
  const gateway = w.devices.gateway as ControllableGateway;
  if (opts.refuse) gateway.setMode(device.serial, 'refuse');
  const prepayId = res.body.jsapi.package.replace('prepay_id=', '');
  await w.wechat.sandbox!.confirmPayment(prepayId, {
    ...(opts.refundOutcome ? { refundOutcome: opts.refundOutcome } : {}),
  });
  await untilAnswered(w, res.body.order.order_no);
  if (opts.refuse) gateway.setMode(device.serial, 'normal');
  const [o] = await w.database.db.select().from(orders).where(eq(orders.order_no, res.body.order.order_no));
  return { order_no: o!.order_no, order_id: o!.id, amount_fen: o!.amount_fen };
}

/** Delivers the payment notification and waits until the device acknowledged or refused the start. */
async function untilAnswered(w: TestWorld, orderNo: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await w.wechat.sandbox!.drainNotifications();
    await w.devices.settle();
    const [o] = await w.database.db.select().from(orders).where(eq(orders.order_no, orderNo));
    const [s] = o
      ? await w.database.db.select().from(device_sessions).where(eq(device_sessions.order_id, o.id))
      : [];
    if (s && s.status !== 'starting') return;
    if (Date.now() > deadline) throw new Error(`order ${orderNo}: device never answered`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function refundsOf(w: TestWorld, orderId: number) {
  return w.database.db
    .select()
    .from(wechat_refunds)
    .where(eq(wechat_refunds.order_id, orderId))
    .orderBy(asc(wechat_refunds.id));
}

export async function sandboxRefundsOf(w: TestWorld, orderNo: string) {
  return w.database.db
    .select()
    .from(sandbox_pay_refunds)
    .where(eq(sandbox_pay_refunds.out_trade_no, orderNo))
    .orderBy(asc(sandbox_pay_refunds.id));
}

export async function orderRow(w: TestWorld, orderId: number) {
  const [o] = await w.database.db.select().from(orders).where(eq(orders.id, orderId));
  return o!;
}

/** Every wallet's principal, by id: what a full refund must restore exactly. */
export async function principals(w: TestWorld): Promise<Map<number, number>> {
  const rows = await w.database.db.select().from(wallets).orderBy(asc(wallets.id));
  return new Map(rows.map((r) => [r.id, r.principal_fen]));
}

/** Sets a refund row due now (or moves its time), as the worker's clock passing would. */
export async function makeDue(w: TestWorld, refundId: number, at = new Date()) {
  await w.database.db
    .update(wechat_refunds)
    .set({ next_attempt_at: at })
    .where(eq(wechat_refunds.id, refundId));
}
