/**
 * Fixtures for the device service tests: the demo data, a member with money on their wallet (a real
 * WeChat recharge booked by the money service) and a paid wallet order with its `starting` session, written the way
 * the pay route does it (one transaction: lock wallet, insert order, settle, beginSession).
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../server/db/client';
import { devices, members, orders, service_prices } from '../../../server/db/schema';
import { ensureBaseData, seedDemo } from '../../../server/seed';
import { memberWallet } from '../../../server/services/ledger';
import { newOrderNo, settleWalletConsume, settleWechatPayment } from '../../../server/services/orders';
import { beginSession } from '../../../server/services/devices/sessions';

export async function seed(db: Db): Promise<void> {
  await ensureBaseData(db);
  await seedDemo(db);
}

let seq = 0;
export async function createMember(db: Db, openid = `fixture-${process.pid}-${++seq}`): Promise<number> {
  const [m] = await db.insert(members).values({ openid }).returning({ id: members.id });
  return m!.id;
}

/** Books a paid WeChat recharge of `fen` onto the member's wallet at the device's merchant. */
export async function fundMember(
  db: Db,
  member_id: number,
  merchant_id: number,
  fen: number,
  now = new Date(),
) {
  await db.transaction(async (tx) => {
    const [o] = await tx
      .insert(orders)
      .values({
        order_no: newOrderNo('recharge', now),
        kind: 'recharge',
        method: 'wechat',
        status: 'pending',
        member_id,
        merchant_id,
        amount_fen: fen,
      })
      .returning();
    await settleWechatPayment(tx, o!, { transaction_id: `fixture-${o!.id}`, now });
  });
}

export async function deviceRow(db: Db, id: number) {
  const [d] = await db.select().from(devices).where(eq(devices.id, id));
  return d!;
}

/** The first active price of the device's venue. */
export async function priceFor(db: Db, device_id: number) {
  const d = await deviceRow(db, device_id);
  const [p] = await db
    .select()
    .from(service_prices)
    .where(and(eq(service_prices.venue_id, d.venue_id), eq(service_prices.active, true)))
    .orderBy(service_prices.sort);
  return { device: d, price: p! };
}

/** Pays from the wallet and begins the session in one transaction, as POST /backend/user/pay does. */
export async function payFromWallet(db: Db, member_id: number, device_id: number, now: Date) {
  const { device, price } = await priceFor(db, device_id);
  return db.transaction(async (tx) => {
    const wallet = await memberWallet(tx, member_id, device.merchant_id, { lock: true });
    const [o] = await tx
      .insert(orders)
      .values({
        order_no: newOrderNo('consume', now),
        kind: 'consume',
        method: 'wallet',
        status: 'pending',
        member_id,
        merchant_id: device.merchant_id,
        venue_id: device.venue_id,
        device_id,
        price_id: price.id,
        amount_fen: price.price_fen,
        minutes: price.minutes,
      })
      .returning();
    if (!(await settleWalletConsume(tx, o!, wallet, now))) throw new Error('fixture: balance too low');
    const s = await beginSession(tx, { order_id: o!.id, device_id, member_id, minutes: price.minutes, now });
    return { order: o!, session_id: s.id, price };
  });
}

export async function orderRow(db: Db, id: number) {
  const [o] = await db.select().from(orders).where(eq(orders.id, id));
  return o!;
}
