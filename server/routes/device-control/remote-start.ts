/**
 * Remote start and stop by staff. A start is either paid in cash (a cash consumption order against the employee,
 * booked through the ledger) or a free service start (an order of kind `service`, 0 fen, the reason kept and
 * audited, never revenue). Either way the device must acknowledge: the order, the `starting` session and the audit
 * row commit together, the start command goes out, and the answer waits for the device; a refusal or no answer by
 * the deadline fails the session and returns the cash (refunded cash), so nobody is charged for a run that never
 * happened. A stop refunds the unused time pro rata to where the payment came from (`refundOrder`).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { StaffSession } from '../../../src/domain/device-control.schema';
import type { AppDeps, StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { device_sessions, devices, merchants, orders, service_prices } from '../../db/schema';
import { HttpError, notFound } from '../../lib/errors';
import { assertOwnMerchant } from '../../auth/staff.middleware';
import { writeAudit } from '../../services/audit';
import type { DevicesService } from '../../services/devices/devices.service';
import { stopCommandId, stopRunningSession } from '../../services/devices/lifecycle';
import {
  ACTIVE_SESSION_STATUSES,
  beginSession,
  checkDeviceAvailable,
  deviceUnavailable,
} from '../../services/devices/sessions';
import { newOrderNo, refundOrder, settleCashConsume, type Order } from '../../services/orders';
import { isUniqueViolation } from '../../services/orders/idempotency';
import { awaitAcknowledgement, failIfOverdue, staffSessionOf } from './staff-sessions';

type Deps = Pick<AppDeps, 'db' | 'now'> & { devices?: DevicesService | undefined };

export interface StartInput {
  price_id: number;
  mode: 'cash' | 'service';
  reason?: string | undefined;
}

/** A device of the staff's merchant (another merchant's answers 404, like a missing one). */
export async function ownDevice(db: Db, staff: StaffAuth, id: number) {
  const [d] = await db.select().from(devices).where(eq(devices.id, id));
  if (!d) throw notFound('设备不存在');
  assertOwnMerchant(staff, d.merchant_id, '设备');
  return d;
}

function requireDevices(deps: Deps): DevicesService {
  if (!deps.devices) throw new HttpError(503, 'DEVICES_UNAVAILABLE', '设备服务暂不可用，请稍后再试');
  return deps.devices;
}

/** The 409 of a start the device refused or never acknowledged: what happened to the money, in words. */
function startFailed(view: StaffSession): HttpError {
  const noAck = /未响应/.test(view.failure_reason ?? '');
  const what = noAck ? '设备未响应' : '设备拒绝启动';
  const money =
    view.method === 'cash'
      ? `，未收费：请将 ¥${(view.amount_fen / 100).toFixed(2)} 现金退还顾客`
      : '，未能启动';
  return new HttpError(409, noAck ? 'DEVICE_NO_ACK' : 'DEVICE_REFUSED', `${what}${money}`, {
    session: view,
  });
}

/** The answer for a start's order as it is now: running (201), still waiting (202), or failed (409). */
async function answerFor(deps: Deps, order: Order): Promise<{ status: 201 | 202; body: StaffSession }> {
  const view = await awaitAcknowledgement(deps.db, order.id, deps.now);
  if (!view) throw new Error(`order ${order.order_no} has no session`);
  if (view.status === 'failed') throw startFailed(view);
  return { status: view.status === 'starting' ? 202 : 201, body: view };
}

async function byKey(db: Db, accountId: number, key: string): Promise<Order | undefined> {
  const [o] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.operator_account_id, accountId), eq(orders.idempotency_key, key)));
  return o;
}

function assertSameStart(first: Order, deviceId: number, input: StartInput): void {
  const kind = input.mode === 'cash' ? 'consume' : 'service';
  if (first.device_id !== deviceId || first.price_id !== input.price_id || first.kind !== kind) {
    throw new HttpError(409, 'IDEMPOTENCY_KEY_REUSED', '该 Idempotency-Key 已用于另一笔不同的请求', {
      order_no: first.order_no,
    });
  }
}

type Device = Awaited<ReturnType<typeof ownDevice>>;
type Price = typeof service_prices.$inferSelect;
type Started = { order: Order; session_id: number } | { replayOf: Order };

export async function remoteStart(
  deps: Deps,
  staff: StaffAuth,
  deviceId: number,
  input: StartInput,
  key: string,
): Promise<{ status: 201 | 202; body: StaffSession }> {
  const { db } = deps;
  const devicesService = requireDevices(deps);
  const device = await ownDevice(db, staff, deviceId);
  const seen = await byKey(db, staff.account_id, key);
  if (seen) {
    assertSameStart(seen, deviceId, input);
    return answerFor(deps, seen);
  }
  const price = await startablePrice(db, device, input.price_id);
  const started = await commitStart(deps, staff, device, price, input, key);
  if ('replayOf' in started) {
    assertSameStart(started.replayOf, deviceId, input);
    return answerFor(deps, started.replayOf);
  }
  const sessionId = started.session_id;
  await devicesService.dispatch(sessionId).catch((err: unknown) => {
    console.error(`dispatch of session ${sessionId} failed (the scheduler will retry):`, err);
  });
  return answerFor(deps, started.order);
}

/** The active price of the device's venue the staff chose (else 400), once the merchant is still active (else 409). */
async function startablePrice(db: Db, device: Device, priceId: number): Promise<Price> {
  const [price] = await db
    .select()
    .from(service_prices)
    .where(and(eq(service_prices.id, priceId), eq(service_prices.venue_id, device.venue_id)));
  if (!price || !price.active) {
    throw new HttpError(400, 'PRICE_NOT_FOUND', '所选价格不存在或不属于该设备所在场地，请重新选择', {
      price_id: '价格不存在或不属于该设备所在场地',
    });
  }
  const [merchant] = await db
    .select({ status: merchants.status })
    .from(merchants)
    .where(eq(merchants.id, device.merchant_id));
  if (merchant?.status !== 'active') throw new HttpError(409, 'MERCHANT_DISABLED', '该商户已停止营业');
  return price;
}

/**
 * The start's one transaction (order, cash booking, `starting` session, audit row), or the order a twin request with
 * the same key committed first.
 */
async function commitStart(
  deps: Deps,
  staff: StaffAuth,
  device: Device,
  price: Price,
  input: StartInput,
  key: string,
): Promise<Started> {
  try {
    return await deps.db.transaction(async (tx): Promise<Started> => {
      // One start at a time per device: the device row is locked, then the key checked again (a twin request may
      // have committed while this one waited).
      await tx.select({ id: devices.id }).from(devices).where(eq(devices.id, device.id)).for('update');
      const twin = await byKey(tx, staff.account_id, key);
      if (twin) return { replayOf: twin };
      const now = deps.now();
      const available = await checkDeviceAvailable(tx, device.id, now);
      if (available !== 'ok') throw deviceUnavailable(available);
      return bookStart(tx, staff, device, price, input, key, now);
    });
  } catch (err) {
    const first = await byKey(deps.db, staff.account_id, key);
    if (!first) throw isUniqueViolation(err) ? deviceUnavailable('busy') : err;
    return { replayOf: first };
  }
}

/** Inside the start's transaction: the cash or service order, its booking, the `starting` session and the audit row. */
async function bookStart(
  tx: Tx,
  staff: StaffAuth,
  device: Device,
  price: Price,
  input: StartInput,
  key: string,
  now: Date,
): Promise<{ order: Order; session_id: number }> {
  const cash = input.mode === 'cash';
  const [order] = await tx
    .insert(orders)
    .values({
      order_no: newOrderNo('consume', now),
      kind: cash ? 'consume' : 'service',
      method: cash ? 'cash' : 'free',
      status: cash ? 'pending' : 'paid',
      merchant_id: device.merchant_id,
      venue_id: device.venue_id,
      device_id: device.id,
      price_id: price.id,
      operator_account_id: staff.account_id,
      amount_fen: cash ? price.price_fen : 0,
      minutes: price.minutes,
      note: input.reason ?? null,
      idempotency_key: key,
      paid_at: cash ? null : now,
      created_at: now,
    })
    .returning();
  if (!order) throw new Error('order not inserted');
  if (cash) await settleCashConsume(tx, order, now);
  const session = await beginSession(tx, {
    order_id: order.id,
    device_id: device.id,
    member_id: null,
    minutes: price.minutes,
    now,
  });
  await writeAudit(tx, staff, {
    action: cash ? 'devices.remote_start_cash' : 'devices.remote_start_service',
    entity: 'devices',
    entity_id: device.id,
    merchant_id: device.merchant_id,
    after: { order_no: order.order_no, price_id: price.id, minutes: price.minutes },
    extra: {
      mode: input.mode,
      amount_fen: order.amount_fen,
      ...(input.reason ? { reason: input.reason } : {}),
    },
  });
  return { order, session_id: session.id };
}

/**
 * Staff stop a running session: it stops, the unused time goes back pro rata where the payment came from (a
 * member's wallet, or the till as refunded cash; a free start returns nothing), an audit row is written in the same
 * transaction, then the stop command goes to the device.
 */
export async function remoteStop(deps: Deps, staff: StaffAuth, deviceId: number): Promise<StaffSession> {
  const { db } = deps;
  const devicesService = requireDevices(deps);
  const device = await ownDevice(db, staff, deviceId);
  const [active] = await db
    .select({ id: device_sessions.id, status: device_sessions.status, order_id: device_sessions.order_id })
    .from(device_sessions)
    .where(
      and(eq(device_sessions.device_id, device.id), inArray(device_sessions.status, ACTIVE_SESSION_STATUSES)),
    );
  if (!active) throw new HttpError(409, 'NO_ACTIVE_SESSION', '该设备当前没有运行中的订单，无需结束');
  if (active.status === 'starting') {
    throw new HttpError(409, 'DEVICE_STARTING', '设备正在启动，请等设备响应后再结束');
  }
  const stopped = await db.transaction(async (tx) => {
    const s = await stopRunningSession(tx, refundOrder, active.id, deps.now());
    if (!s) return null;
    await writeAudit(tx, staff, {
      action: 'devices.remote_stop',
      entity: 'devices',
      entity_id: device.id,
      merchant_id: device.merchant_id,
      after: { session_id: s.id, refund_fen: s.refund_fen },
    });
    return s;
  });
  if (!stopped) throw new HttpError(409, 'NO_ACTIVE_SESSION', '该订单已结束，无需再次结束');
  await devicesService.gateway
    .stop(device.serial, stopCommandId(stopped.id))
    .catch((err: unknown) => console.error('device stop command failed:', err));
  const view = await staffSessionOf(db, stopped.order_id);
  if (!view) throw new Error(`session ${stopped.id} vanished`);
  return view;
}

/** A staff start's order, by number, as it is now (the screen asks again after a 202). */
export async function startStatus(deps: Deps, staff: StaffAuth, orderNo: string): Promise<StaffSession> {
  const [o] = await deps.db.select().from(orders).where(eq(orders.order_no, orderNo));
  if (!o || o.operator_account_id === null || o.device_id === null) throw notFound('订单不存在');
  assertOwnMerchant(staff, o.merchant_id, '订单');
  await failIfOverdue(deps.db, o.id, deps.now());
  const view = await staffSessionOf(deps.db, o.id);
  if (!view) throw notFound('订单不存在');
  return view;
}
