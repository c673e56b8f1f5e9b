/**
 * Fixtures for the wallet and withdrawal suites: a second merchant with its owner and partner accounts, money
 * credited onto a settlement or share wallet through the ledger, and a paid consume order whose split credits the
 * demo partner's share (the way a member's payment does it: settled, then its device session run to the end).
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../server/db/client';
import { accounts, device_sessions, merchants, orders, wallets } from '../../../server/db/schema';
import { hashPassword } from '../../../server/auth/password';
import {
  externalWallet,
  memberWallet,
  merchantWallet,
  partnerWallet,
  postTransaction,
} from '../../../server/services/ledger';
import { newOrderNo, settleWalletConsume, settleWechatPayment } from '../../../server/services/orders';
import { beginSession } from '../../../server/services/devices/sessions';
import { priceFor } from '../device-sessions/devices-fixtures';

let seq = 0;

/** A merchant with an owner (level 2) and a partner (level 3), password demo1234. */
export async function createMerchantWithStaff(db: Db, name: string) {
  const n = ++seq;
  const hash = await hashPassword('demo1234');
  const [m] = await db.insert(merchants).values({ name }).returning();
  const [owner, partner] = await db
    .insert(accounts)
    .values([
      {
        username: `owner${n}`,
        name: `${name}老板`,
        role: 'merchant',
        level: 2,
        merchant_id: m!.id,
        password_hash: hash,
      },
      {
        username: `partner${n}`,
        name: `${name}合伙人`,
        role: 'partner',
        level: 3,
        merchant_id: m!.id,
        password_hash: hash,
      },
    ])
    .returning();
  await db.update(merchants).set({ owner_account_id: owner!.id }).where(eq(merchants.id, m!.id));
  return { merchant_id: m!.id, owner: owner!, partner: partner! };
}

export async function accountByUsername(db: Db, username: string) {
  const [a] = await db.select().from(accounts).where(eq(accounts.username, username));
  return a!;
}

/** Credits `fen` onto the account's own wallet (settlement for level 2, share for level 3) from outside. */
export async function credit(
  db: Db,
  account: { id: number; level: number; merchant_id: number | null },
  fen: number,
) {
  return db.transaction(async (tx) => {
    const w =
      account.level === 2
        ? await merchantWallet(tx, account.merchant_id!)
        : await partnerWallet(tx, account.id, account.merchant_id);
    const cash = await externalWallet(tx, 'cash');
    await postTransaction(tx, {
      kind: 'test_credit',
      entries: [
        { wallet_id: cash.id, bucket: 'principal', amount_fen: -fen },
        { wallet_id: w.id, bucket: 'principal', amount_fen: fen },
      ],
    });
    return w.id;
  });
}

export async function walletRow(db: Db, id: number) {
  const [w] = await db.select().from(wallets).where(eq(wallets.id, id));
  return w!;
}

/** A bonus credit onto a member's wallet (compensation), from the external promotion wallet. */
export async function bonusCredit(db: Db, member_id: number, merchant_id: number, fen: number) {
  await db.transaction(async (tx) => {
    const w = await memberWallet(tx, member_id, merchant_id, { lock: true });
    const promo = await externalWallet(tx, 'promotion');
    await postTransaction(tx, {
      kind: 'bonus_credit',
      entries: [
        { wallet_id: promo.id, bucket: 'principal', amount_fen: -fen },
        { wallet_id: w.id, bucket: 'bonus', amount_fen: fen },
      ],
    });
  });
}

/**
 * A member's paid consumption on `device_id` (WeChat, or from the member's wallet), split at once, its session
 * begun and then run to its end. Returns the order id, or undefined when the member's wallet could not pay.
 */
export async function paidConsume(
  db: Db,
  input: {
    member_id: number;
    device_id: number;
    method: 'wechat' | 'wallet';
    now?: Date;
    /** Leave the session running (it may still be stopped early and refunded). */
    running?: boolean;
  },
): Promise<number | undefined> {
  const now = input.now ?? new Date();
  const { device, price } = await priceFor(db, input.device_id);
  return db.transaction(async (tx) => {
    const wallet = await memberWallet(tx, input.member_id, device.merchant_id, { lock: true });
    const [o] = await tx
      .insert(orders)
      .values({
        order_no: newOrderNo('consume', now),
        kind: 'consume',
        method: input.method,
        status: 'pending',
        member_id: input.member_id,
        merchant_id: device.merchant_id,
        venue_id: device.venue_id,
        device_id: device.id,
        price_id: price.id,
        amount_fen: price.price_fen,
        minutes: price.minutes,
      })
      .returning();
    if (input.method === 'wechat') {
      await settleWechatPayment(tx, o!, { transaction_id: `wx-${o!.id}`, now });
    } else if (!(await settleWalletConsume(tx, o!, wallet, now))) {
      await tx.delete(orders).where(eq(orders.id, o!.id));
      return undefined;
    }
    const s = await beginSession(tx, {
      order_id: o!.id,
      device_id: device.id,
      member_id: input.member_id,
      minutes: price.minutes,
      now,
    });
    // The device acknowledged; unless asked to keep running, it ran the whole time (what the device service records).
    await tx
      .update(device_sessions)
      .set({ status: input.running ? 'running' : 'ended', started_at: now, ends_at: now })
      .where(and(eq(device_sessions.id, s.id)));
    await tx
      .update(orders)
      .set({ status: input.running ? 'started' : 'completed' })
      .where(eq(orders.id, o!.id));
    return o!.id;
  });
}
