/**
 * A WeChat recharge notification's shape (docs/performance.md), on PGlite and, with TEST_DATABASE_URL, on
 * PostgreSQL: booking a paid recharge (pay and bonus) sends five statements from BEGIN to COMMIT, counted at the
 * driver; the same notification again sends no ledger movement; a notification that does not match its order leaves
 * no record of itself; the ledger invariants hold. Counts only, nothing
 * timed.
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, statementCounter, type Database } from '../../../server/db/client';
import { members, orders, packages, pay_notifications } from '../../../server/db/schema';
import {
  applyWechatTransaction,
  newOrderNo,
  PaymentMismatchError,
  paymentDeps,
} from '../../../server/services/orders';
import type { Transaction } from '../../../server/wechat/types';
import { assertLedgerInvariants } from '../money/invariants';
import { createTestApp, type TestApp } from '../test-app';
import { createTestDb } from '../test-db';

let database: Database;
let h: TestApp<{ wechat: true }>;

beforeAll(async () => {
  // PGlite in memory (the server's driver setup, counted); PostgreSQL on a scratch database.
  database = process.env.TEST_DATABASE_URL
    ? await createTestDb()
    : await openDatabase({ dataDir: 'memory://' });
  h = await createTestApp({ wechat: true, deps: { db: database.db } });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await database?.close();
});

/** A member (a new one unless given) with a pending WeChat recharge of the first package, and the transaction paying it. */
async function pendingRecharge(member?: { id: number; openid: string }) {
  const { db } = database;
  const [pkg] = await db.select().from(packages).orderBy(asc(packages.id)).limit(1);
  const m =
    member ??
    (
      await db
        .insert(members)
        .values({ openid: `notify-stmt-${process.pid}-${Date.now()}-${Math.random()}` })
        .returning()
    )[0]!;
  const [o] = await db
    .insert(orders)
    .values({
      order_no: newOrderNo('recharge'),
      kind: 'recharge',
      method: 'wechat',
      status: 'pending',
      member_id: m.id,
      merchant_id: pkg!.merchant_id,
      package_id: pkg!.id,
      amount_fen: pkg!.pay_fen,
      bonus_fen: pkg!.bonus_fen,
    })
    .returning();
  expect(o!.bonus_fen).toBeGreaterThan(0);
  const t = {
    appid: h.wechat.pay.appid,
    mchid: h.wechat.pay.mchid,
    out_trade_no: o!.order_no,
    transaction_id: `tx-${o!.order_no}`,
    trade_state: 'SUCCESS',
    trade_state_desc: '支付成功',
    payer: { openid: m.openid },
    amount: { total: o!.amount_fen },
  } as Transaction;
  return { member: m, order: o!, t, source: { notification_id: `n-${o!.order_no}` } };
}

describe('recharge notification', () => {
  it('books pay and bonus in five statements from BEGIN to COMMIT; the same notification again books nothing', async () => {
    const deps = paymentDeps(h.deps);
    // The member's first recharge opens the wallet; the second one is counted.
    const first = await pendingRecharge();
    expect((await applyWechatTransaction(deps, first.t, first.source)).result).toBe('applied');
    const second = await pendingRecharge(first.member);
    const counter = statementCounter(database.db)!;
    const before = counter.count;
    const res = await applyWechatTransaction(deps, second.t, second.source);
    expect(counter.count - before).toBe(5);
    expect(res.result).toBe('applied');
    expect(res.order).toMatchObject({ status: 'paid', wechat_transaction_id: second.t.transaction_id });
    const dup = await applyWechatTransaction(deps, second.t, second.source);
    expect(dup.result).toBe('duplicate');
    const [row] = await database.db.select().from(orders).where(eq(orders.id, second.order.id));
    expect(row).toEqual(res.order);
    await assertLedgerInvariants(database.db);
  });

  it('refuses a notification of another amount, and its record goes with it', async () => {
    const deps = paymentDeps(h.deps);
    const { t, source, order } = await pendingRecharge();
    const wrong = { ...t, amount: { total: t.amount!.total + 1 } } as Transaction;
    await expect(applyWechatTransaction(deps, wrong, source)).rejects.toThrow(PaymentMismatchError);
    const noted = await database.db
      .select()
      .from(pay_notifications)
      .where(eq(pay_notifications.out_trade_no, order.order_no));
    expect(noted).toEqual([]);
    expect((await applyWechatTransaction(deps, t, source)).result).toBe('applied');
    await assertLedgerInvariants(database.db);
  });
});
