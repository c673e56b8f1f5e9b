/**
 * The reserve while a WeChat refund is on its way (docs/money.md "WeChat refunds", docs/decisions.md D15): from the
 * decision until WeChat's outcome, what the merchant, the partner and the platform hold from that order is not
 * withdrawable; they withdraw everything they may meanwhile, and the refund still books without any wallet going
 * short (the partner's may not go negative at all); at the outcome the reserve is released. Real app, sandbox and
 * database (PGlite and PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { ledger_entries, ledger_transactions, wallets } from '../../../server/db/schema';
import { reservedFen } from '../../../server/services/withdrawals/requests';
import type { StopResponse } from '../../../src/domain/api';
import { MIN_WITHDRAWAL_FEN, type WalletView } from '../../../src/domain/wallet.schema';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices } from '../money/money-harness';
import { as } from '../people/fixtures';
import { createTestApp, ONLINE_WORLD, type TestApp, withCookie } from '../test-app';
import { payByWechat, refundsOf } from './refund-helpers';

let w: TestApp<typeof ONLINE_WORLD>;

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
});
afterAll(async () => {
  await w?.close();
});

/** What each merchant / partner / platform wallet got (+) or gave back (−) by the order's transactions of `kind`. */
async function moved(orderId: number, kind: 'consume' | 'refund') {
  const rows = await w.database.db
    .select({ wallet_id: ledger_entries.wallet_id, amount_fen: ledger_entries.amount_fen })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
    .where(
      and(
        eq(ledger_transactions.order_id, orderId),
        eq(ledger_transactions.kind, kind),
        inArray(wallets.kind, ['merchant', 'partner', 'platform']),
      ),
    );
  const by = new Map<number, number>();
  for (const r of rows) by.set(r.wallet_id, (by.get(r.wallet_id) ?? 0) + r.amount_fen);
  return by;
}

describe('a WeChat refund on its way', () => {
  it('keeps what it will take back out of reach of withdrawals, and releases it at the outcome', async () => {
    const [device] = await demoDevices(w);
    const { cookie } = await w.signIn('o-reserve');
    const paid = await payByWechat(w, cookie, device!);
    const stop = await w.json<StopResponse>(
      `/backend/user/using/${paid.order_no}/stop`,
      withCookie(cookie, { method: 'POST' }),
    );
    expect(stop.body.refund_to).toBe('wechat');
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('pending');

    // Decided, not booked: each wallet's share of the order is reserved.
    const credited = await moved(paid.order_id, 'consume');
    expect(credited.size).toBeGreaterThanOrEqual(2);
    const reservedBefore = new Map<number, number>();
    for (const [id, fen] of credited) {
      const r = await w.database.db.transaction((tx) => reservedFen(tx, id));
      expect(r).toBeGreaterThanOrEqual(fen);
      reservedBefore.set(id, r);
    }

    // The merchant and the partner see the order's share as available but reserved, and cannot withdraw it:
    // whatever they may withdraw goes (none here: this order is all they earned), a yuan more is refused.
    for (const who of ['merchant', 'partner']) {
      const token = await w.login(who);
      const view = (await w.json<WalletView>('/backend/wallet', as(token))).body;
      expect(view.available_fen).toBeGreaterThan(0);
      expect(view.reserved_fen).toBeGreaterThanOrEqual(view.available_fen);
      expect(view.withdrawable_fen).toBe(0);
      const more = await w.request(
        '/backend/wallet/withdrawals',
        as(token, 'POST', { amount_fen: MIN_WITHDRAWAL_FEN }),
      );
      expect(more.status).toBe(409);
    }

    // WeChat says SUCCESS: the reversal books (no wallet short), and takes at most what was reserved.
    await w.settle();
    expect((await refundsOf(w, paid.order_id))[0]!.status).toBe('succeeded');
    const taken = await moved(paid.order_id, 'refund');
    for (const [id, fen] of taken) {
      expect(fen).toBeLessThanOrEqual(0);
      expect(-fen).toBeLessThanOrEqual(reservedBefore.get(id) ?? 0);
    }
    // Nobody went short: neither the partner nor the merchant (whose settlement could legally carry a debt).
    const held = await w.database.db
      .select()
      .from(wallets)
      .where(inArray(wallets.kind, ['partner', 'merchant']));
    expect(held.every((x) => x.principal_fen >= 0)).toBe(true);
    await assertLedgerInvariants(w.database.db, { settled: true });

    // Released: nothing of this order is reserved any more.
    for (const [id, fen] of credited) {
      const r = await w.database.db.transaction((tx) => reservedFen(tx, id));
      expect(r).toBe(Math.max(0, reservedBefore.get(id)! - fen));
    }
  });
});
