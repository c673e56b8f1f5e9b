/**
 * A disabled partner's rules (docs/decisions.md D19): while the account is disabled its rules stay (and still count
 * toward the venue's 100%), but payments credit it nothing: that share stays with the merchant. A refund of a
 * payment made before still takes back exactly what that payment credited the partner. Enabling the account again
 * resumes the share for payments from then on. The ledger invariants hold throughout.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { ShareRule } from '../../../src/domain/profit-sharing.schema';
import { accounts, ledger_entries, wallets } from '../../../server/db/schema';
import { refundOrder } from '../../../server/services/orders';
import { createMember, fundMember, payFromWallet } from '../device-sessions/devices-fixtures';
import { assertLedgerInvariants } from '../money/invariants';
import { as } from '../people/fixtures';
import { createTestApp, type TestApp } from '../test-app';

let t: TestApp;
let merchant: string;
let partnerId: number;
beforeAll(async () => {
  t = await createTestApp();
  merchant = await t.login('merchant');
  const [p] = await t.deps.db.select().from(accounts).where(eq(accounts.username, 'partner'));
  partnerId = p!.id;
});
afterAll(async () => t?.close());

/** The ledger movements of one wallet of merchant 1 (a partner's or the settlement wallet), oldest first. */
const movements = async (kind: 'partner' | 'merchant', accountId?: number) =>
  (
    await t.deps.db
      .select({ a: ledger_entries.amount_fen })
      .from(ledger_entries)
      .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
      .where(
        and(
          eq(wallets.kind, kind),
          eq(wallets.merchant_id, 1),
          accountId === undefined ? undefined : eq(wallets.account_id, accountId),
        ),
      )
      .orderBy(ledger_entries.id)
  ).map((r) => r.a);

const setStatus = async (status: 'active' | 'disabled') => {
  const res = await t.json(`/backend/sub-users/${partnerId}`, as(merchant, 'PUT', { status }));
  expect(res.status).toBe(200);
};

describe("a disabled partner's rules", () => {
  it('credit the merchant instead; refunds reverse what was credited; enabling resumes the share', async () => {
    const member = await createMember(t.deps.db);
    await fundMember(t.deps.db, member, 1, 10_000);
    const now = new Date();
    // Venue 1, 200 fen: fee 12, net 188; the partner's 20% = 37, the merchant 151.
    const before = await payFromWallet(t.deps.db, member, 1, now);
    expect(await movements('partner', partnerId)).toEqual([37]);

    await setStatus('disabled');
    const settlementBefore = (await movements('merchant')).length;
    await payFromWallet(t.deps.db, member, 2, now);
    expect(await movements('partner', partnerId)).toEqual([37]);
    expect((await movements('merchant')).slice(settlementBefore)).toEqual([188]);

    // The rule is kept (shown, still counted in the venue's total) while the account is disabled.
    const rules = await t.json<Page<ShareRule>>('/backend/profit-sharing?venue_id=1', as(merchant));
    expect(rules.body.items).toMatchObject([
      { partner_account_id: partnerId, ratio_bp: 2000, venue_total_bp: 2000, partner_status: 'disabled' },
    ]);

    // A refund of the payment made before the account was disabled takes back the share it credited.
    await t.deps.db.transaction((tx) =>
      refundOrder(tx, { order_id: before.order.id, amount_fen: 200, reason: 'test' }),
    );
    expect(await movements('partner', partnerId)).toEqual([37, -37]);
    await assertLedgerInvariants(t.deps.db);

    await setStatus('active');
    await payFromWallet(t.deps.db, member, 3, now);
    expect(await movements('partner', partnerId)).toEqual([37, -37, 37]);
    await assertLedgerInvariants(t.deps.db);
  });
});
