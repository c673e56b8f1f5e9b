/**
 * Cash in the ledger (docs/decisions.md D18) on a real database: a cash recharge keeps its source; the split of a
 * wallet pay funded online, in cash and mixed; a cash order at the counter; refunds of each reversing exactly what
 * they reverse; a settlement wallet running negative as a debt, netted by later online income, and refusing a
 * withdrawal until it is positive again. The shared invariants (merchant identity included) hold after each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Database, Db } from '../../../server/db/client';
import { ledger_transactions } from '../../../server/db/schema';
import {
  externalWallet,
  memberWallet,
  merchantWallet,
  postTransaction,
} from '../../../server/services/ledger';
import { bookCashRecharge, OrderMoneyError } from '../../../server/services/orders';
import {
  freezeForWithdrawal,
  WithdrawalOverdraftError,
} from '../../../server/services/withdrawals/movements';
import { assertLedgerInvariants, ledgerViolations } from './invariants';
import { settleWechatRefunds } from './refund-fixtures';
import { createTestDb } from '../test-db';
import {
  type CashWorld,
  cashRecharge,
  cashWorld,
  memberBuckets,
  newMember,
  orderRow,
  pay,
  principalOf,
  settlement,
  stop,
  wechatRecharge,
} from './cash-fixtures';

let database: Database;
let db: Db;
beforeAll(async () => {
  database = await createTestDb();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

/** Balances of the wallets a consumption touches, to compare before and after. */
async function snapshot(w: CashWorld, memberId: number | null) {
  return {
    member: memberId === null ? null : await memberBuckets(db, w, memberId),
    settlement: (await settlement(db, w)).available,
    platform: await principalOf(db, { kind: 'platform' }),
    partner: await principalOf(db, { kind: 'partner', account_id: w.partnerIds[0]! }),
    cash: await principalOf(db, { kind: 'external', code: 'cash' }),
    till: await principalOf(db, { kind: 'external', code: 'till' }),
    promotion: await principalOf(db, { kind: 'external', code: 'promotion' }),
  };
}

function delta(a: Awaited<ReturnType<typeof snapshot>>, b: Awaited<ReturnType<typeof snapshot>>) {
  return {
    settlement: b.settlement - a.settlement,
    platform: b.platform - a.platform,
    partner: b.partner - a.partner,
    cash: b.cash - a.cash,
    till: b.till - a.till,
    promotion: b.promotion - a.promotion,
  };
}

describe('cash recharge', () => {
  it('credits cash principal and bonus apart, splits nothing, and books an order once', async () => {
    const w = await cashWorld(db, 600, [2000]);
    const m = await newMember(db);
    const before = await snapshot(w, m);
    const id = await cashRecharge(db, w, m, 5000, 500);
    expect(await memberBuckets(db, w, m)).toEqual({ cash: 5000, online: 0, bonus: 500 });
    const d = delta(before, await snapshot(w, m));
    expect(d).toEqual({ settlement: 0, platform: 0, partner: 0, cash: -5000, till: 0, promotion: -500 });
    const o = await orderRow(db, id);
    expect([o.status, o.paid_at !== null, o.cash_fen]).toEqual(['paid', true, 0]);
    await expect(db.transaction((tx) => bookCashRecharge(tx, o))).rejects.toBeInstanceOf(OrderMoneyError);
    expect(await memberBuckets(db, w, m)).toEqual({ cash: 5000, online: 0, bonus: 500 });
    await assertLedgerInvariants(db);
  });
});

describe('the split by source of principal', () => {
  // Fee 6%, one partner at 20%: a principal of 1000 splits into fee 60, share floor(940 * 0.2) = 188, rest 752.
  it('online principal: fee, share, and the rest to the settlement wallet', async () => {
    const w = await cashWorld(db, 600, [2000]);
    const m = await newMember(db);
    await wechatRecharge(db, w, m, 1000);
    const before = await snapshot(w, m);
    const id = await pay(db, w, 'wallet', m, 1000);
    expect(delta(before, await snapshot(w, m))).toEqual({
      settlement: 752,
      platform: 60,
      partner: 188,
      cash: 0,
      till: 0,
      promotion: 0,
    });
    expect((await orderRow(db, id!)).cash_fen).toBe(0);
    await assertLedgerInvariants(db);
  });

  it('cash principal: fee and share charged to the settlement wallet, which runs negative', async () => {
    const w = await cashWorld(db, 600, [2000]);
    const m = await newMember(db);
    await cashRecharge(db, w, m, 1000);
    const before = await snapshot(w, m);
    const id = await pay(db, w, 'wallet', m, 1000);
    expect(delta(before, await snapshot(w, m))).toEqual({
      settlement: -248,
      platform: 60,
      partner: 188,
      cash: 0,
      till: 1000,
      promotion: 0,
    });
    expect(await memberBuckets(db, w, m)).toEqual({ cash: 0, online: 0, bonus: 0 });
    expect((await orderRow(db, id!)).cash_fen).toBe(1000);
    expect((await settlement(db, w)).available).toBe(-248);
    await assertLedgerInvariants(db);
  });

  it('mixed: cash first, then online, then bonus; one split over the whole principal', async () => {
    const w = await cashWorld(db, 600, [2000]);
    const m = await newMember(db);
    await cashRecharge(db, w, m, 300, 200);
    await wechatRecharge(db, w, m, 700);
    const before = await snapshot(w, m);
    // 1100 = 300 cash + 700 online + 100 bonus; the principal 1000 splits 60 / 188 / 752, the merchant holds 300.
    const id = await pay(db, w, 'wallet', m, 1100);
    expect(await memberBuckets(db, w, m)).toEqual({ cash: 0, online: 0, bonus: 100 });
    expect(delta(before, await snapshot(w, m))).toEqual({
      settlement: 452,
      platform: 60,
      partner: 188,
      cash: 0,
      till: 300,
      promotion: 100,
    });
    const o = await orderRow(db, id!);
    expect([o.cash_fen, o.bonus_fen]).toEqual([300, 100]);
    await assertLedgerInvariants(db);
  });

  it('a cash order at the counter: reported as cash, owes fee and share, credits the merchant nothing', async () => {
    const w = await cashWorld(db, 600, [2000]);
    const before = await snapshot(w, null);
    const id = await pay(db, w, 'cash', null, 1000);
    expect(delta(before, await snapshot(w, null))).toEqual({
      settlement: -248,
      platform: 60,
      partner: 188,
      cash: -1000,
      till: 1000,
      promotion: 0,
    });
    const o = await orderRow(db, id!);
    expect([o.method, o.status, o.cash_fen, o.member_id]).toEqual(['cash', 'started', 1000, null]);
    await assertLedgerInvariants(db);
  });
});

describe('refunds reverse exactly what they reverse', () => {
  for (const kind of ['online', 'cash', 'mixed', 'counter'] as const) {
    it(`${kind}: a partial refund, then the rest, returns every wallet to where it was`, async () => {
      const w = await cashWorld(db, 650, [1500, 700]);
      const m = kind === 'counter' ? null : await newMember(db);
      if (m !== null && kind !== 'online') await cashRecharge(db, w, m, kind === 'cash' ? 1237 : 401, 99);
      if (m !== null && kind !== 'cash')
        await wechatRecharge(db, w, m, kind === 'online' ? 1237 : 700, kind === 'online' ? 99 : 0);
      const before = await snapshot(w, m);
      const amount = kind === 'counter' ? 1237 : kind === 'mixed' ? 1150 : 1300;
      const id = await pay(db, w, kind === 'counter' ? 'cash' : 'wallet', m, amount);
      const paid = await snapshot(w, m);
      await stop(db, id!, 401);
      const half = await snapshot(w, m);
      // The partial refund moves everything back towards where it was, never past it.
      for (const k of ['settlement', 'platform', 'partner', 'till'] as const) {
        const lo = Math.min(before[k], paid[k]);
        const hi = Math.max(before[k], paid[k]);
        expect(half[k]).toBeGreaterThanOrEqual(lo);
        expect(half[k]).toBeLessThanOrEqual(hi);
      }
      if (m !== null) {
        const total = (b: typeof half.member) => b!.cash + b!.online + b!.bonus;
        expect(total(half.member) - total(paid.member)).toBe(401);
      } else expect(half.cash - paid.cash).toBe(401);
      await assertLedgerInvariants(db);
      await stop(db, id!, amount - 401);
      expect(await snapshot(w, m)).toEqual(before);
      const o = await orderRow(db, id!);
      expect([o.status, o.refunded_fen]).toEqual(['refunded', amount]);
      await assertLedgerInvariants(db);
    });
  }

  it('a WeChat-paid order refunds to WeChat (booked when WeChat reports success)', async () => {
    const w = await cashWorld(db, 600, [2000]);
    const m = await newMember(db);
    const id = await pay(db, w, 'wechat', m, 800);
    await stop(db, id!, 800);
    expect((await settlement(db, w)).available).toBe(800 - 48 - Math.floor((800 - 48) * 0.2));
    expect(await settleWechatRefunds(db)).toBe(1);
    expect(await memberBuckets(db, w, m)).toEqual({ cash: 0, online: 0, bonus: 0 });
    expect((await settlement(db, w)).available).toBe(0);
    await assertLedgerInvariants(db);
  });
});

describe('a negative settlement is a debt', () => {
  it('is netted by later online income; a withdrawal needs a positive available balance', async () => {
    const w = await cashWorld(db, 1000, []);
    const m = await newMember(db);
    await cashRecharge(db, w, m, 2000);
    await pay(db, w, 'wallet', m, 2000); // fee 200 owed on cash
    const s = await settlement(db, w);
    expect(s.available).toBe(-200);
    await expect(
      db.transaction((tx) => freezeForWithdrawal(tx, { wallet_id: s.id, amount_fen: 1 })),
    ).rejects.toBeInstanceOf(WithdrawalOverdraftError);
    await pay(db, w, 'wechat', m, 1000); // +900 online
    expect((await settlement(db, w)).available).toBe(700);
    await expect(
      db.transaction((tx) => freezeForWithdrawal(tx, { wallet_id: s.id, amount_fen: 701 })),
    ).rejects.toBeInstanceOf(WithdrawalOverdraftError);
    await expect(
      db.transaction((tx) => freezeForWithdrawal(tx, { wallet_id: s.id, amount_fen: 0 })),
    ).rejects.toBeInstanceOf(WithdrawalOverdraftError);
    await db.transaction((tx) => freezeForWithdrawal(tx, { wallet_id: s.id, amount_fen: 700 }));
    expect(await settlement(db, w)).toEqual({ id: s.id, available: 0, frozen: 700 });
    // More cash spending after the withdrawal request: the debt grows again; frozen money is untouched.
    await cashRecharge(db, w, m, 500);
    await pay(db, w, 'wallet', m, 500);
    expect(await settlement(db, w)).toEqual({ id: s.id, available: -50, frozen: 700 });
    await assertLedgerInvariants(db);
  });

  it('member wallets never go negative, in either principal', async () => {
    const w = await cashWorld(db, 0, []);
    const m = await newMember(db);
    await cashRecharge(db, w, m, 100);
    expect(await pay(db, w, 'wallet', m, 101)).toBeUndefined();
    await expect(
      db.transaction(async (tx) => {
        const mw = await memberWallet(tx, m, w.merchantId);
        const cash = await externalWallet(tx, 'cash');
        await postTransaction(tx, {
          kind: 'test',
          entries: [
            { wallet_id: mw.id, bucket: 'cash_principal', amount_fen: -101 },
            { wallet_id: cash.id, bucket: 'principal', amount_fen: 101 },
          ],
        });
      }),
    ).rejects.toThrow();
    expect(await memberBuckets(db, w, m)).toEqual({ cash: 100, online: 0, bonus: 0 });
    await assertLedgerInvariants(db);
  });
});

describe('the merchant invariant', () => {
  it('catches an order movement that pays the merchant for cash it already holds', async () => {
    const w = await cashWorld(db, 600, []);
    const id = await pay(db, w, 'cash', null, 1000);
    await db
      .transaction(async (tx) => {
        const mw = await merchantWallet(tx, w.merchantId);
        const till = await externalWallet(tx, 'till');
        const [t] = await tx.select().from(ledger_transactions).where(eq(ledger_transactions.order_id, id!));
        // The old split: the merchant credited its part of cash that is in its till already.
        await postTransaction(tx, {
          kind: 'adjust',
          order_id: t!.order_id,
          entries: [
            { wallet_id: till.id, bucket: 'principal', amount_fen: -940 },
            { wallet_id: mw.id, bucket: 'principal', amount_fen: 940 },
          ],
        });
        const v = await ledgerViolations(tx as unknown as Db);
        expect(v.some((x) => x.startsWith(`merchant ${w.merchantId}:`))).toBe(true);
        tx.rollback();
      })
      .catch((e: unknown) => {
        if (!(e instanceof Error) || !/rollback/i.test(e.message)) throw e;
      });
    await assertLedgerInvariants(db);
  });
});
