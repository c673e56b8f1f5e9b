/**
 * The ledger and the order money service on a real database: recharge credit, wallet pay with the split, refunds
 * (partial and full, wallet and WeChat), refusals, and a property test over fee rates, share rules, balances and
 * refund sequences. The shared invariant helper runs after each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { createTestDb } from '../test-db';
import { assertLedgerInvariants, ledgerViolations } from './invariants';
import { settleWechatRefunds } from './refund-fixtures';
import type { Database, Db } from '../../../server/db/client';
import {
  accounts,
  device_sessions,
  devices,
  merchants,
  members,
  orders,
  packages,
  products,
  share_rules,
  venues,
  wallets,
} from '../../../server/db/schema';
import { memberWallet, postTransaction, externalWallet, LedgerError } from '../../../server/services/ledger';
import {
  allocateByPrefix,
  computeSplit,
  newOrderNo,
  refundOrder,
  settleWalletConsume,
  settleWechatPayment,
  takeFromWallet,
  OrderMoneyError,
} from '../../../server/services/orders';

let database: Database;
let db: Db;

interface World {
  merchantId: number;
  venueId: number;
  deviceIds: number[];
  partnerId: number;
  memberId: number;
}

let counter = 0;
async function world(feeRateBp = 600, ratioBp = 2000): Promise<World> {
  counter += 1;
  const [m] = await db
    .insert(merchants)
    .values({ name: `商户${counter}`, fee_rate_bp: feeRateBp })
    .returning();
  const [v] = await db
    .insert(venues)
    .values({ merchant_id: m!.id, name: `场地${counter}` })
    .returning();
  const [p] = await db.insert(products).values({ name: '充电桩' }).returning();
  const ds = await db
    .insert(devices)
    .values(
      [1, 2, 3].map((i) => ({
        merchant_id: m!.id,
        venue_id: v!.id,
        product_id: p!.id,
        name: `设备${counter}-${i}`,
        serial: `SN-${counter}-${i}-${Math.random()}`,
      })),
    )
    .returning();
  const [partner] = await db
    .insert(accounts)
    .values({
      username: `partner${counter}-${Math.random()}`,
      name: '合伙人',
      password_hash: 'x',
      role: 'partner',
      level: 3,
      merchant_id: m!.id,
    })
    .returning();
  if (ratioBp > 0) {
    await db
      .insert(share_rules)
      .values({ merchant_id: m!.id, venue_id: v!.id, partner_account_id: partner!.id, ratio_bp: ratioBp });
  }
  const [mem] = await db
    .insert(members)
    .values({ openid: `o-${counter}-${Math.random()}` })
    .returning();
  return {
    merchantId: m!.id,
    venueId: v!.id,
    deviceIds: ds.map((d) => d.id),
    partnerId: partner!.id,
    memberId: mem!.id,
  };
}

/** Recharges through the real settlement path: a pending WeChat recharge order, then the verified payment. */
async function recharge(w: World, payFen: number, bonusFen: number) {
  const [pkg] = await db
    .insert(packages)
    .values({ merchant_id: w.merchantId, name: `充${payFen}`, pay_fen: payFen, bonus_fen: bonusFen })
    .returning();
  return db.transaction(async (tx) => {
    const [o] = await tx
      .insert(orders)
      .values({
        order_no: newOrderNo('recharge'),
        kind: 'recharge',
        method: 'wechat',
        status: 'pending',
        member_id: w.memberId,
        merchant_id: w.merchantId,
        package_id: pkg!.id,
        amount_fen: payFen,
        bonus_fen: bonusFen,
      })
      .returning();
    await settleWechatPayment(tx, o!, { transaction_id: `T${o!.order_no}`, now: new Date() });
    return o!;
  });
}

/** A wallet pay of `amount` on a device, with its device session row (status `running`). */
async function walletPay(w: World, amount: number, deviceIdx = 0) {
  return db.transaction(async (tx) => {
    const wallet = await memberWallet(tx, w.memberId, w.merchantId, { lock: true });
    const [o] = await tx
      .insert(orders)
      .values({
        order_no: newOrderNo('consume'),
        kind: 'consume',
        method: 'wallet',
        status: 'pending',
        member_id: w.memberId,
        merchant_id: w.merchantId,
        venue_id: w.venueId,
        device_id: w.deviceIds[deviceIdx]!,
        amount_fen: amount,
        minutes: 30,
      })
      .returning();
    const ok = await settleWalletConsume(tx, o!, wallet, new Date());
    if (!ok) {
      tx.rollback();
    }
    await tx.insert(device_sessions).values({
      order_id: o!.id,
      device_id: w.deviceIds[deviceIdx]!,
      member_id: w.memberId,
      minutes: 30,
      status: 'running',
      started_at: new Date(),
    });
    await tx.update(orders).set({ status: 'started' }).where(eq(orders.id, o!.id));
    return o!;
  });
}

async function walletRow(
  kind: string,
  where: Partial<{ member_id: number; merchant_id: number; account_id: number }>,
) {
  const all = await db.select().from(wallets);
  return all.find(
    (x) =>
      x.kind === kind &&
      (where.member_id === undefined || x.member_id === where.member_id) &&
      (where.merchant_id === undefined || x.merchant_id === where.merchant_id) &&
      (where.account_id === undefined || x.account_id === where.account_id),
  );
}

beforeAll(async () => {
  database = await createTestDb();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

describe('pure money helpers', () => {
  it('splits fee, shares and the rest without losing a fen', () => {
    expect(computeSplit(1000, 600, [{ partner_account_id: 7, ratio_bp: 2000 }])).toEqual({
      fee_fen: 60,
      shares: [{ account_id: 7, amount_fen: 188 }],
      merchant_fen: 752,
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 4 }),
        (p, fee, ratios) => {
          const s = computeSplit(
            p,
            fee,
            ratios.map((ratio_bp, i) => ({ partner_account_id: i + 1, ratio_bp })),
          );
          const sum = s.fee_fen + s.merchant_fen + s.shares.reduce((a, x) => a + x.amount_fen, 0);
          return sum === p && s.merchant_fen >= 0 && s.shares.every((x) => x.amount_fen > 0);
        },
      ),
    );
  });

  it('takes cash principal first, then online principal, then bonus', () => {
    expect(takeFromWallet({ principal_fen: 300, cash_principal_fen: 0, bonus_fen: 500 }, 500)).toEqual({
      cash_fen: 0,
      principal_fen: 300,
      bonus_fen: 200,
    });
    expect(takeFromWallet({ principal_fen: 300, cash_principal_fen: 0, bonus_fen: 100 }, 500)).toBeNull();
    expect(takeFromWallet({ principal_fen: 300, cash_principal_fen: 200, bonus_fen: 100 }, 450)).toEqual({
      cash_fen: 200,
      principal_fen: 250,
      bonus_fen: 0,
    });
    expect(takeFromWallet({ principal_fen: 300, cash_principal_fen: 200, bonus_fen: 100 }, 150)).toEqual({
      cash_fen: 150,
      principal_fen: 0,
      bonus_fen: 0,
    });
    expect(takeFromWallet({ principal_fen: 300, cash_principal_fen: 200, bonus_fen: 100 }, 601)).toBeNull();
  });

  it('allocates by prefix floors within bounds and exactly', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        (ws, seed) => {
          const total = ws.reduce((a, b) => a + b, 0);
          const part = total === 0 ? 0 : seed % (total + 1);
          const parts = allocateByPrefix(ws, total, part);
          return (
            parts.reduce((a, b) => a + b, 0) === part &&
            parts.every((x, i) => x >= 0 && x <= ws[i]!) &&
            allocateByPrefix(ws, total, total).every((x, i) => x === ws[i])
          );
        },
      ),
    );
  });

  it('order numbers are valid out_trade_no values and unique', () => {
    const set = new Set(Array.from({ length: 1000 }, () => newOrderNo('consume')));
    expect(set.size).toBe(1000);
    for (const no of set) expect(no).toMatch(/^C\d{24}$/);
    expect(newOrderNo('recharge')).toMatch(/^R\d{24}$/);
  });
});

describe('ledger', () => {
  it('refuses an unbalanced movement and an overdraft, changing nothing', async () => {
    const w = await world();
    await expect(
      db.transaction(async (tx) => {
        const mw = await memberWallet(tx, w.memberId, w.merchantId);
        const ext = await externalWallet(tx, 'cash');
        await postTransaction(tx, {
          kind: 'test',
          entries: [
            { wallet_id: mw.id, bucket: 'principal', amount_fen: 100 },
            { wallet_id: ext.id, bucket: 'principal', amount_fen: -99 },
          ],
        });
      }),
    ).rejects.toBeInstanceOf(LedgerError);
    await expect(
      db.transaction(async (tx) => {
        const mw = await memberWallet(tx, w.memberId, w.merchantId);
        const ext = await externalWallet(tx, 'cash');
        await postTransaction(tx, {
          kind: 'test',
          entries: [
            { wallet_id: mw.id, bucket: 'principal', amount_fen: -100 },
            { wallet_id: ext.id, bucket: 'principal', amount_fen: 100 },
          ],
        });
      }),
    ).rejects.toThrow();
    const mw = await walletRow('member', { member_id: w.memberId });
    expect(mw?.principal_fen ?? 0).toBe(0);
    await assertLedgerInvariants(db);
  });
});

describe('recharge, wallet pay and refunds', () => {
  it('credits principal and bonus apart, splits a wallet pay on its principal part', async () => {
    const w = await world(600, 2000);
    await recharge(w, 1000, 200);
    let mw = await walletRow('member', { member_id: w.memberId, merchant_id: w.merchantId });
    expect([mw?.principal_fen, mw?.bonus_fen]).toEqual([1000, 200]);

    // 1100 = 1000 principal + 100 bonus. Split of 1000: fee 60, partner floor(940*0.2)=188, merchant 752.
    const o = await walletPay(w, 1100);
    mw = await walletRow('member', { member_id: w.memberId, merchant_id: w.merchantId });
    expect([mw?.principal_fen, mw?.bonus_fen]).toEqual([0, 100]);
    expect((await walletRow('merchant', { merchant_id: w.merchantId }))?.principal_fen).toBe(752);
    expect((await walletRow('partner', { account_id: w.partnerId }))?.principal_fen).toBe(188);
    const [row] = await db.select().from(orders).where(eq(orders.id, o.id));
    expect(row?.bonus_fen).toBe(100);
    await assertLedgerInvariants(db);

    // Stop early: refund 550 (half). Bonus back = floor(100*550/1100) = 50, principal 500.
    await db.transaction((tx) => refundOrder(tx, { order_id: o.id, amount_fen: 550, reason: '提前结束' }));
    mw = await walletRow('member', { member_id: w.memberId, merchant_id: w.merchantId });
    expect([mw?.principal_fen, mw?.bonus_fen]).toEqual([500, 150]);
    // Then the rest: everything returns exactly, the split is fully reversed.
    await db.transaction((tx) => refundOrder(tx, { order_id: o.id, amount_fen: 550, reason: '其余退款' }));
    mw = await walletRow('member', { member_id: w.memberId, merchant_id: w.merchantId });
    expect([mw?.principal_fen, mw?.bonus_fen]).toEqual([1000, 200]);
    expect((await walletRow('merchant', { merchant_id: w.merchantId }))?.principal_fen).toBe(0);
    expect((await walletRow('partner', { account_id: w.partnerId }))?.principal_fen).toBe(0);
    const [after] = await db.select().from(orders).where(eq(orders.id, o.id));
    expect([after?.status, after?.refunded_fen]).toEqual(['refunded', 1100]);

    // More than was paid is refused and changes nothing.
    await expect(
      db.transaction((tx) => refundOrder(tx, { order_id: o.id, amount_fen: 1, reason: '多退' })),
    ).rejects.toBeInstanceOf(OrderMoneyError);
    await assertLedgerInvariants(db);
  });

  it('refunds a WeChat-paid consume to WeChat once WeChat reports success, and reverses its split', async () => {
    const w = await world(600, 0);
    const o = await db.transaction(async (tx) => {
      const [o] = await tx
        .insert(orders)
        .values({
          order_no: newOrderNo('consume'),
          kind: 'consume',
          method: 'wechat',
          status: 'pending',
          member_id: w.memberId,
          merchant_id: w.merchantId,
          venue_id: w.venueId,
          device_id: w.deviceIds[1]!,
          amount_fen: 500,
          minutes: 30,
        })
        .returning();
      await settleWechatPayment(tx, o!, { transaction_id: 'T1', now: new Date() });
      // No device session: it could not start, so refund in full.
      await refundOrder(tx, { order_id: o!.id, amount_fen: 500, reason: '设备未响应' });
      return o!;
    });
    // Decided in the outbox: nothing booked yet.
    const [decided] = await db.select().from(orders).where(eq(orders.id, o.id));
    expect([decided?.status, decided?.refunded_fen]).toEqual(['refunded', 0]);
    await assertLedgerInvariants(db);
    expect(await settleWechatRefunds(db)).toBe(1);
    const mw = await walletRow('member', { member_id: w.memberId, merchant_id: w.merchantId });
    expect([mw?.principal_fen ?? 0, mw?.bonus_fen ?? 0]).toEqual([0, 0]);
    const [row] = await db.select().from(orders).where(eq(orders.id, o.id));
    expect([row?.status, row?.refunded_fen, row?.failure_reason]).toEqual(['refunded', 500, '设备未响应']);
    await assertLedgerInvariants(db);
  });

  it('detects a paid order that neither started nor was refunded', async () => {
    const w = await world();
    await recharge(w, 300, 0);
    await db
      .transaction(async (tx) => {
        const wallet = await memberWallet(tx, w.memberId, w.merchantId, { lock: true });
        const [o] = await tx
          .insert(orders)
          .values({
            order_no: newOrderNo('consume'),
            kind: 'consume',
            method: 'wallet',
            status: 'pending',
            member_id: w.memberId,
            merchant_id: w.merchantId,
            venue_id: w.venueId,
            device_id: w.deviceIds[2]!,
            amount_fen: 300,
            minutes: 10,
          })
          .returning();
        await settleWalletConsume(tx, o!, wallet, new Date());
        const violations = await ledgerViolations(tx as unknown as Db);
        expect(violations.some((v) => v.includes(o!.order_no) && v.includes('no device session'))).toBe(true);
        tx.rollback();
      })
      .catch((e: unknown) => {
        // drizzle signals the deliberate rollback with an error
        if (!(e instanceof Error) || !/rollback/i.test(e.message)) throw e;
      });
    await assertLedgerInvariants(db);
  });

  it('keeps every invariant over random fees, shares, balances and refund sequences', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 50_000 }),
        fc.integer({ min: 0, max: 50_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 3 }),
        async (fee, ratio, pay, bonus, price, refundPcts) => {
          const w = await world(fee, ratio);
          await recharge(w, pay, bonus);
          if (pay + bonus < price) {
            await expect(walletPay(w, price)).rejects.toThrow();
            return;
          }
          const o = await walletPay(w, price);
          let refunded = 0;
          for (const pct of refundPcts) {
            const r = Math.min(price - refunded, Math.max(1, Math.floor((price * pct) / 100)));
            if (r <= 0) break;
            await db.transaction((tx) => refundOrder(tx, { order_id: o.id, amount_fen: r, reason: 'prop' }));
            refunded += r;
          }
          if (refunded < price) {
            await db.transaction((tx) =>
              refundOrder(tx, { order_id: o.id, amount_fen: price - refunded, reason: 'rest' }),
            );
          }
          const mw = await walletRow('member', { member_id: w.memberId, merchant_id: w.merchantId });
          expect([mw?.principal_fen, mw?.bonus_fen]).toEqual([pay, bonus]);
          expect((await walletRow('merchant', { merchant_id: w.merchantId }))?.principal_fen ?? 0).toBe(0);
          await assertLedgerInvariants(db);
        },
      ),
      { numRuns: 25 },
    );
  });
});
