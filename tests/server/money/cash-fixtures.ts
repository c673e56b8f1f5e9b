/**
 * Fixtures for the cash-in-the-ledger tests (docs/decisions.md D18): a merchant with a venue and partners sharing
 * it, members, and the money movements written the way the routes write them (one DB transaction each, the
 * member's wallet locked first): cash and WeChat recharges, wallet, WeChat and cash pays with a running device
 * session, and stops that refund part or all of an order.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../../server/db/client';
import {
  accounts,
  device_sessions,
  devices,
  members,
  merchants,
  orders,
  products,
  share_rules,
  venues,
  wallets,
} from '../../../server/db/schema';
import { memberWallet, merchantWallet } from '../../../server/services/ledger';
import {
  bookCashRecharge,
  newOrderNo,
  refundOrder,
  settleCashConsume,
  settleWalletConsume,
  settleWechatPayment,
} from '../../../server/services/orders';

export interface CashWorld {
  merchantId: number;
  venueId: number;
  productId: number;
  partnerIds: number[];
}

let seq = 0;
const tag = () => `${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

/** A merchant at `feeRateBp`, one venue, and one partner per ratio sharing that venue. */
export async function cashWorld(db: Db, feeRateBp: number, ratiosBp: number[]): Promise<CashWorld> {
  const t = tag();
  const [m] = await db
    .insert(merchants)
    .values({ name: `现金商户${t}`, fee_rate_bp: feeRateBp })
    .returning();
  const [v] = await db
    .insert(venues)
    .values({ merchant_id: m!.id, name: `场地${t}` })
    .returning();
  const [p] = await db
    .insert(products)
    .values({ name: `充电桩${t}` })
    .returning();
  const partnerIds: number[] = [];
  for (const ratio_bp of ratiosBp) {
    const [a] = await db
      .insert(accounts)
      .values({
        username: `cash-partner-${tag()}`,
        name: '合伙人',
        password_hash: 'x',
        role: 'partner',
        level: 3,
        merchant_id: m!.id,
      })
      .returning();
    await db
      .insert(share_rules)
      .values({ merchant_id: m!.id, venue_id: v!.id, partner_account_id: a!.id, ratio_bp });
    partnerIds.push(a!.id);
  }
  return { merchantId: m!.id, venueId: v!.id, productId: p!.id, partnerIds };
}

export async function newMember(db: Db): Promise<number> {
  const [m] = await db
    .insert(members)
    .values({ openid: `cash-${tag()}` })
    .returning();
  return m!.id;
}

/** A cash recharge at the counter (pay + bonus), booked by the cash service. */
export async function cashRecharge(db: Db, w: CashWorld, memberId: number, payFen: number, bonusFen = 0) {
  return db.transaction(async (tx) => {
    await memberWallet(tx, memberId, w.merchantId, { lock: true });
    const [o] = await tx
      .insert(orders)
      .values({
        order_no: newOrderNo('recharge'),
        kind: 'recharge',
        method: 'cash',
        status: 'pending',
        member_id: memberId,
        merchant_id: w.merchantId,
        amount_fen: payFen,
        bonus_fen: bonusFen,
      })
      .returning();
    await bookCashRecharge(tx, o!, new Date());
    return o!.id;
  });
}

/** A WeChat recharge (pay + bonus), booked as a verified payment. */
export async function wechatRecharge(db: Db, w: CashWorld, memberId: number, payFen: number, bonusFen = 0) {
  return db.transaction(async (tx) => {
    const [o] = await tx
      .insert(orders)
      .values({
        order_no: newOrderNo('recharge'),
        kind: 'recharge',
        method: 'wechat',
        status: 'pending',
        member_id: memberId,
        merchant_id: w.merchantId,
        amount_fen: payFen,
        bonus_fen: bonusFen,
      })
      .returning();
    await settleWechatPayment(tx, o!, { transaction_id: `T${o!.order_no}`, now: new Date() });
    return o!.id;
  });
}

export type PayMethod = 'wallet' | 'wechat' | 'cash';

/**
 * A paid consumption of `amountFen` on a fresh device of the venue, its session running. `memberId` is null for a
 * cash order at the counter. Returns the order id, or undefined when the member's wallet does not cover it
 * (nothing written).
 */
export async function pay(
  db: Db,
  w: CashWorld,
  method: PayMethod,
  memberId: number | null,
  amountFen: number,
): Promise<number | undefined> {
  const [d] = await db
    .insert(devices)
    .values({
      merchant_id: w.merchantId,
      venue_id: w.venueId,
      product_id: w.productId,
      name: `设备${tag()}`,
      serial: `SN-${tag()}`,
    })
    .returning();
  return db.transaction(async (tx) => {
    const wallet =
      memberId === null ? undefined : await memberWallet(tx, memberId, w.merchantId, { lock: true });
    const [o] = await tx
      .insert(orders)
      .values({
        order_no: newOrderNo('consume'),
        kind: 'consume',
        method,
        status: 'pending',
        member_id: memberId,
        merchant_id: w.merchantId,
        venue_id: w.venueId,
        device_id: d!.id,
        amount_fen: amountFen,
        minutes: 60,
      })
      .returning();
    const now = new Date();
    if (method === 'cash') await settleCashConsume(tx, o!, now);
    else if (method === 'wechat') await settleWechatPayment(tx, o!, { transaction_id: `T${o!.id}`, now });
    else if (!(await settleWalletConsume(tx, o!, wallet!, now))) {
      await tx.delete(orders).where(eq(orders.id, o!.id));
      return undefined;
    }
    await tx.insert(device_sessions).values({
      order_id: o!.id,
      device_id: d!.id,
      member_id: memberId,
      minutes: 60,
      status: 'running',
      started_at: now,
    });
    await tx.update(orders).set({ status: 'started' }).where(eq(orders.id, o!.id));
    return o!.id;
  });
}

/** Stops an order's session early and refunds `refundFen` of it (all of it on `full`). */
export async function stop(db: Db, orderId: number, refundFen: number) {
  await db.transaction(async (tx) => {
    await refundOrder(tx, { order_id: orderId, amount_fen: refundFen, reason: '提前结束' });
    await tx
      .update(device_sessions)
      .set({ status: 'stopped', ended_at: new Date() })
      .where(eq(device_sessions.order_id, orderId));
  });
}

export async function orderRow(db: Db, id: number) {
  const [o] = await db.select().from(orders).where(eq(orders.id, id));
  return o!;
}

/** A member's wallet buckets at the world's merchant (zeros before the first movement). */
export async function memberBuckets(db: Db, w: CashWorld, memberId: number) {
  const row = await db.transaction((tx) => memberWallet(tx, memberId, w.merchantId));
  return { cash: row.cash_principal_fen, online: row.principal_fen, bonus: row.bonus_fen };
}

/** The merchant's settlement wallet: available (may be negative) and frozen. */
export async function settlement(db: Db, w: CashWorld) {
  const row = await db.transaction((tx) => merchantWallet(tx, w.merchantId));
  return { id: row.id, available: row.principal_fen, frozen: row.frozen_fen };
}

/** Principal of a system wallet: platform, partner (by account), or external by code. */
export async function principalOf(
  db: Db,
  where: { kind: 'platform' } | { kind: 'partner'; account_id: number } | { kind: 'external'; code: string },
): Promise<number> {
  const all = await db.select().from(wallets).where(eq(wallets.kind, where.kind));
  const w = all.find(
    (x) =>
      (where.kind !== 'partner' || x.account_id === where.account_id) &&
      (where.kind !== 'external' || x.code === where.code),
  );
  return w?.principal_fen ?? 0;
}
