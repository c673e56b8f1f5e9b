/**
 * The reserve while a WeChat refund is on its way (docs/money.md "WeChat refunds", docs/decisions.md D15, D22): from
 * the decision until WeChat's outcome, what the merchant, the partner and the platform hold from that order is not
 * withdrawable. The merchant and the partner withdraw (and are paid out) everything else they earned meanwhile; the
 * refunds still succeed, the ledger reverses the payment and the split exactly, and no wallet goes negative (the
 * merchant's settlement does not even dip into a debt). Real app, sandbox and database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { ledger_entries, ledger_transactions, wallets } from '../../../server/db/schema';
import { reservedFen } from '../../../server/services/withdrawals/requests';
import type { StopResponse } from '../../../src/domain/api';
import { MIN_WITHDRAWAL_FEN, type WalletView, type Withdrawal } from '../../../src/domain/wallet.schema';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices } from '../money/money-harness';
import { as } from '../people/fixtures';
import { createTestApp, ONLINE_WORLD, type TestApp, withCookie } from '../test-app';
import { firstPrice, orderRow, type PaidDevice, payByWechat, refundsOf } from './refund-helpers';

let w: TestApp<typeof ONLINE_WORLD>;

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
});
afterAll(async () => {
  await w?.close();
});

type Kind = 'consume' | 'refund';
type WalletKind = (typeof wallets.$inferSelect)['kind'];

/** What each wallet got (+) or gave (−) in the order's transactions of `kind`, by wallet id. */
async function moved(orderId: number, kind: Kind, walletKinds: WalletKind[]) {
  const rows = await w.database.db
    .select({ wallet_id: ledger_entries.wallet_id, amount_fen: ledger_entries.amount_fen })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
    .where(
      and(
        eq(ledger_transactions.order_id, orderId),
        eq(ledger_transactions.kind, kind),
        inArray(wallets.kind, walletKinds),
      ),
    );
  const by = new Map<number, number>();
  for (const r of rows) by.set(r.wallet_id, (by.get(r.wallet_id) ?? 0) + r.amount_fen);
  return by;
}
const SPLIT: WalletKind[] = ['merchant', 'partner', 'platform'];

async function wallet(id: number) {
  const [row] = await w.database.db.select().from(wallets).where(eq(wallets.id, id));
  return row!;
}
const reserved = (id: number) => w.database.db.transaction((tx) => reservedFen(tx, id));
/** Moves the clock and has the device beat at the new time, as its periodic heartbeat would (online window). */
async function advance(ms: number, device: PaidDevice) {
  w.advance(ms);
  await w.devices.handle({ type: 'heartbeat', serials: [device.serial], at: w.deps.now() });
}
const view = async (token: string) => (await w.json<WalletView>('/backend/wallet', as(token))).body;

/** A WeChat pay whose session runs to its end: earnings nothing takes back. */
async function earnedOrder(device: PaidDevice) {
  const { cookie } = await w.signIn('o-reserve-earned');
  const paid = await payByWechat(w, cookie, device);
  const price = await firstPrice(w, device.venue_id);
  await advance(price.minutes * 60_000 + 1_000, device);
  await w.devices.tick();
  expect((await orderRow(w, paid.order_id)).status).toBe('completed');
  return paid;
}

/** Withdraws everything the account may, has the admin pay it out, and shows that not a fen more goes. */
async function withdrawAll(who: 'merchant' | 'partner', adminToken: string) {
  const token = await w.login(who);
  const before = await view(token);
  expect(before.withdrawable_fen).toBeGreaterThanOrEqual(MIN_WITHDRAWAL_FEN);
  expect(before.withdrawable_fen).toBe(before.available_fen - before.reserved_fen);
  const asked = await w.json<Withdrawal>(
    '/backend/wallet/withdrawals',
    as(token, 'POST', { amount_fen: before.withdrawable_fen }),
  );
  expect(asked.status).toBe(201);
  for (const step of ['approve', 'pay'] as const) {
    const r = await w.request(
      `/backend/admin/withdrawals/${asked.body.id}/${step}`,
      as(adminToken, 'POST', step === 'pay' ? { reference: `流水 ${who}` } : {}),
    );
    expect(r.status).toBe(200);
  }
  const after = await view(token);
  expect(after).toMatchObject({ available_fen: before.reserved_fen, withdrawable_fen: 0 });
  const more = await w.request(
    '/backend/wallet/withdrawals',
    as(token, 'POST', { amount_fen: MIN_WITHDRAWAL_FEN }),
  );
  expect(more.status).toBe(409);
  return after;
}

describe('WeChat refunds on their way', () => {
  it('stay covered when the merchant and the partner withdraw everything else, and reverse the split exactly', async () => {
    const [device] = await demoDevices(w);
    const adminToken = await w.login('admin');

    // Earned and done: these orders' shares are withdrawable (three, so the partner's share passes the minimum).
    for (let i = 0; i < 3; i++) {
      const earned = await earnedOrder(device!);
      expect((await moved(earned.order_id, 'consume', SPLIT)).size).toBe(3);
    }

    // Two refunds decided, not booked: the device refuses one start (full refund), one session is stopped early
    // (pro rata). The worker does not run yet.
    const { cookie } = await w.signIn('o-reserve-flight');
    const full = await payByWechat(w, cookie, device!, { refuse: true });
    const partial = await payByWechat(w, cookie, device!);
    await advance(60_000, device!);
    const stop = await w.json<StopResponse>(
      `/backend/user/using/${partial.order_no}/stop`,
      withCookie(cookie, { method: 'POST' }),
    );
    expect(stop.body.refund_to).toBe('wechat');
    const inFlight = [full, partial];
    for (const o of inFlight) expect((await refundsOf(w, o.order_id))[0]!.status).toBe('pending');

    // Each split wallet's reserve covers its share of the orders in flight.
    const share = new Map<number, number>();
    for (const o of inFlight)
      for (const [id, fen] of await moved(o.order_id, 'consume', SPLIT))
        share.set(id, (share.get(id) ?? 0) + fen);
    for (const [id, fen] of share) expect(await reserved(id)).toBe(fen);

    // The merchant and the partner take out every fen they may: left with exactly the reserve.
    await withdrawAll('merchant', adminToken);
    await withdrawAll('partner', adminToken);
    for (const [id, fen] of share) {
      const row = await wallet(id);
      if (row.kind !== 'platform')
        expect({ id, principal: row.principal_fen }).toEqual({ id, principal: fen });
    }
    await assertLedgerInvariants(w.database.db);

    // WeChat says SUCCESS for both: the refunds book, reversing the payment to WeChat and the split.
    await w.settle();
    for (const o of inFlight) expect((await refundsOf(w, o.order_id))[0]!.status).toBe('succeeded');
    const fullBack = await moved(full.order_id, 'refund', SPLIT);
    const fullIn = await moved(full.order_id, 'consume', SPLIT);
    expect(fullBack).toEqual(new Map([...fullIn].map(([id, fen]) => [id, -fen])));
    const [partialRow] = await refundsOf(w, partial.order_id);
    expect(partialRow!.amount_fen).toBeGreaterThan(0);
    expect(partialRow!.amount_fen).toBeLessThan(partial.amount_fen);
    const partialBack = await moved(partial.order_id, 'refund', SPLIT);
    for (const [id, fen] of await moved(partial.order_id, 'consume', SPLIT)) {
      const back = -(partialBack.get(id) ?? 0);
      expect(back).toBeGreaterThanOrEqual(0);
      expect(back).toBeLessThanOrEqual(fen);
    }
    const sumOf = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    // The payment is reversed: WeChat's external wallet gives back what the member gets on WeChat, and the split
    // gives back that much less what the payer side of the reversal took from promotion (nothing for WeChat pays).
    for (const o of inFlight) {
      const [row] = await refundsOf(w, o.order_id);
      const ext = await moved(o.order_id, 'refund', ['external']);
      expect(sumOf(ext)).toBe(row!.amount_fen);
      expect(-sumOf(await moved(o.order_id, 'refund', SPLIT))).toBe(row!.amount_fen);
      expect((await orderRow(w, o.order_id)).refunded_fen).toBe(row!.amount_fen);
    }

    // Nobody went short: every split wallet holds exactly its reserve less what the reversal took, none below zero.
    for (const [id, fen] of share) {
      const row = await wallet(id);
      const left = fen + (fullBack.get(id) ?? 0) + (partialBack.get(id) ?? 0);
      expect(left).toBeGreaterThanOrEqual(0);
      if (row.kind !== 'platform') expect(row.principal_fen).toBe(left);
      expect(row.principal_fen).toBeGreaterThanOrEqual(0);
      expect(row.frozen_fen).toBe(0);
      // Released: nothing is reserved any more.
      expect(await reserved(id)).toBe(0);
    }
    const negative = await w.database.db.select().from(wallets).where(inArray(wallets.kind, SPLIT));
    expect(negative.filter((x) => x.principal_fen < 0 || x.frozen_fen < 0)).toEqual([]);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});
