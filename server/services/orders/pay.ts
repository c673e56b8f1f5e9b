/** POST /backend/user/pay: paying for a device from the wallet or with WeChat Pay, up to the session start. */
import { eq } from 'drizzle-orm';
import type { PayRequest, PayResponse, UsingSession } from '../../../src/domain/api';
import type { Tx } from '../../db/client';
import { devices, members, merchants, orders, service_prices } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import { checkDeviceAvailable } from '../devices/sessions';
import { findByKey, isUniqueViolation, replay, sameRequest } from './idempotency';
import { type Order, type PaymentDeps, newOrderNo, orderSummary } from './order';
import { prepay, requireWechat } from './prepay';
import { deviceRefusal } from './pay-refusals';
import { type WalletPayResult, walletPayTx } from './wallet-pay';
import { safeReturnPath } from '../../lib/return-path';
import { memberIdForHash, memberSessionRequired } from '../../member/member-sessions';

/** Sends a committed session's start command; the scheduler retries any that this misses (crash, gateway error). */
export function dispatchLater(deps: PaymentDeps, sessionId: number | undefined): void {
  if (sessionId === undefined || !deps.devices) return;
  deps.devices.dispatch(sessionId).catch((err: unknown) => {
    console.error(`dispatch of session ${sessionId} failed (the scheduler will retry):`, err);
  });
}

/**
 * POST /backend/user/pay: pays for a device run, for the member whose session cookie hashes to `sessionHash` (not
 * live: 401 WECHAT_AUTH_REQUIRED, nothing written; docs/decisions.md D31). Wallet: debit + split + `starting` session
 * in one transaction (the session resolved and the member's wallet row locked by its first statement, so concurrent
 * pays of one member run one after another and the balance decides), then the start command. WeChat: a pending order
 * and a prepay; the money is booked only from a verified notification or an order query (`applyWechatTransaction`).
 */
export async function payForDevice(
  deps: PaymentDeps,
  sessionHash: string,
  req: PayRequest,
  opts: { idempotencyKey?: string | undefined; returnPath?: string | undefined } = {},
): Promise<PayResponse> {
  const { db } = deps;
  const key = opts.idempotencyKey;
  const returnPath = safeReturnPath(
    opts.returnPath,
    `/user/pay?device_id=${req.device_id}&venue_id=${req.venue_id}`,
  );
  const expect = {
    kind: 'consume' as const,
    device_id: req.device_id,
    price_id: req.price_id,
    method: req.method,
  };
  if (req.method === 'wallet') return payFromWallet(deps, sessionHash, req, key, returnPath, expect);
  const memberId = await memberOfSession(deps, sessionHash);
  if (key) {
    const first = await findByKey(db, memberId, key);
    if (first) {
      sameRequest(first, expect);
      return replay(deps, first, returnPath);
    }
  }
  const { device, price } = await payableDevice(deps, req);
  // WeChat Pay: the order waits for the payment; nothing moves until WeChat says it is paid.
  const wechat = requireWechat(deps);
  const [member] = await db.select({ openid: members.openid }).from(members).where(eq(members.id, memberId));
  if (!member) throw memberSessionRequired();
  const order = await insertPending(
    deps,
    {
      order_no: newOrderNo('consume', deps.now()),
      kind: 'consume' as const,
      method: req.method,
      status: 'pending' as const,
      member_id: memberId,
      merchant_id: device.merchant_id,
      venue_id: device.venue_id,
      device_id: device.id,
      price_id: price.id,
      amount_fen: price.price_fen,
      minutes: price.minutes,
      idempotency_key: key ?? null,
      created_at: deps.now(),
    },
    memberId,
    key,
  );
  if ('replayOf' in order) {
    sameRequest(order.replayOf, expect);
    return replay(deps, order.replayOf, returnPath);
  }
  const jsapi = await prepay(
    deps,
    wechat,
    order.order,
    member.openid,
    `${device.name} ${price.name}`,
    returnPath,
  );
  return { order: orderSummary(order.order), jsapi };
}

/** The member behind a session cookie's hash; 401 WECHAT_AUTH_REQUIRED when the session is not live. */
async function memberOfSession(deps: PaymentDeps, sessionHash: string): Promise<number> {
  const id = await memberIdForHash(deps.db, sessionHash, deps.now());
  if (id === null) throw memberSessionRequired();
  return id;
}

/**
 * The device and price a WeChat pay is for, checked: the device exists (404) at the venue scanned (400), the price is
 * an active one of that venue (400), the merchant still trades (409) and the device is free (409).
 */
async function payableDevice(deps: PaymentDeps, req: PayRequest) {
  const { db } = deps;
  const [device] = await db
    .select({
      id: devices.id,
      name: devices.name,
      venue_id: devices.venue_id,
      merchant_id: devices.merchant_id,
    })
    .from(devices)
    .where(eq(devices.id, req.device_id));
  if (!device) throw new HttpError(404, 'DEVICE_NOT_FOUND', '设备不存在');
  if (device.venue_id !== req.venue_id) {
    throw new HttpError(400, 'VENUE_MISMATCH', '场地与设备不符，请重新扫描设备上的二维码', {
      venue_id: req.venue_id,
      device_venue_id: device.venue_id,
    });
  }
  const [price] = await db.select().from(service_prices).where(eq(service_prices.id, req.price_id));
  if (price && price.venue_id !== device.venue_id)
    throw new HttpError(400, 'PRICE_OTHER_VENUE', '所选价格不属于本设备所在场地，请重新选择', {
      price_id: req.price_id,
    });
  if (!price || !price.active)
    throw new HttpError(400, 'PRICE_NOT_FOUND', '所选价格不存在或已下架，请重新选择', {
      price_id: req.price_id,
    });
  const [merchant] = await db
    .select({ status: merchants.status })
    .from(merchants)
    .where(eq(merchants.id, device.merchant_id));
  if (merchant?.status !== 'active') throw new HttpError(409, 'MERCHANT_DISABLED', '该商户已停止营业');
  const available = await checkDeviceAvailable(db as unknown as Tx, device.id, deps.now());
  if (available !== 'ok') throw deviceRefusal(available);
  return { device, price };
}

export async function insertPending(
  deps: PaymentDeps,
  values: typeof orders.$inferInsert,
  memberId: number,
  key: string | undefined,
): Promise<{ order: Order } | { replayOf: Order }> {
  try {
    const [order] = await deps.db.insert(orders).values(values).returning();
    if (!order) throw new Error('order not inserted');
    return { order };
  } catch (err) {
    if (key && isUniqueViolation(err)) {
      const first = await findByKey(deps.db, memberId, key);
      if (first) return { replayOf: first };
    }
    throw err;
  }
}

/**
 * A wallet pay: debit + split + `starting` session in one transaction (walletPayTx, the member's wallet locked
 * first, so concurrent pays of one member run one after another and the balance decides), then the start command.
 */
async function payFromWallet(
  deps: PaymentDeps,
  sessionHash: string,
  req: PayRequest,
  key: string | undefined,
  returnPath: string,
  expect: Partial<Order>,
): Promise<PayResponse> {
  let result: WalletPayResult;
  try {
    result = await deps.db.transaction((tx) => walletPayTx(tx, sessionHash, req, key ?? null, deps.now()));
  } catch (err) {
    if (key && isUniqueViolation(err)) {
      const first = await findByKey(deps.db, await memberOfSession(deps, sessionHash), key);
      if (first) {
        sameRequest(first, expect);
        return replay(deps, first, returnPath);
      }
    }
    if (isUniqueViolation(err)) throw deviceRefusal('busy');
    throw err;
  }
  if ('replayOf' in result) {
    sameRequest(result.replayOf, expect);
    return replay(deps, result.replayOf, returnPath);
  }
  dispatchLater(deps, result.sessionId);
  const session: UsingSession = {
    order_no: result.order.order_no,
    device_id: result.device.id,
    device_name: result.device.name,
    minutes: result.minutes,
    amount_fen: result.order.amount_fen,
    started_at: null,
    ends_at: null,
    status: 'starting',
  };
  return { order: orderSummary(result.order), session };
}
