/**
 * A disabled partner's rules on the member's own pay path (docs/decisions.md D19): a wallet pay over HTTP
 * (`POST /backend/user/pay`, which reads the venue's rules in one query of its own) credits a disabled partner
 * nothing and the merchant that part; once the merchant enables the account again, the next pay shares as before.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginResponse, PayResponse, ServicePrice } from '../../../src/domain/api';
import { accounts, ledger_entries, wallets } from '../../../server/db/schema';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices, rechargeViaCashier } from '../money/money-harness';
import { createTestApp, ONLINE_WORLD, postJson, type TestWorld, withCookie } from '../test-app';
import { as } from '../people/fixtures';

let w: TestWorld;
let merchant: string;
let partnerId: number;
beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
  const login = await w.json<LoginResponse>(
    '/backend/auth/login',
    postJson({ username: 'merchant', password: 'demo1234' }),
  );
  merchant = login.body.token;
  const [p] = await w.database.db.select().from(accounts).where(eq(accounts.username, 'partner'));
  partnerId = p!.id;
});
afterAll(async () => w?.close());

const credits = async (kind: 'partner' | 'merchant') =>
  (
    await w.database.db
      .select({ a: ledger_entries.amount_fen })
      .from(ledger_entries)
      .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
      .where(
        and(
          eq(wallets.kind, kind),
          eq(wallets.merchant_id, 1),
          kind === 'partner' ? eq(wallets.account_id, partnerId) : undefined,
        ),
      )
      .orderBy(ledger_entries.id)
  ).map((r) => r.a);

const setStatus = async (status: 'active' | 'disabled') => {
  const res = await w.json(`/backend/sub-users/${partnerId}`, as(merchant, 'PUT', { status }));
  expect(res.status).toBe(200);
};

describe("a disabled partner's rules on the wallet pay path", () => {
  it('share nothing while disabled; the share resumes once enabled', async () => {
    const ds = (await demoDevices(w)).filter((d) => d.merchant_id === 1);
    const { cookie } = await w.signIn('o-disabled-partner');
    await rechargeViaCashier(w, cookie, 1, 1);
    const pay = async (device: (typeof ds)[number]) => {
      const prices = await w.json<{ items: ServicePrice[] }>(
        `/backend/api/venue-service-prices?venue_id=${device.venue_id}`,
      );
      const res = await w.json<PayResponse>(
        '/backend/user/pay',
        withCookie(
          cookie,
          postJson({
            device_id: device.id,
            venue_id: device.venue_id,
            price_id: prices.body.items[0]!.id,
            method: 'wallet',
          }),
        ),
      );
      expect(res.status).toBe(201);
    };
    const venue1 = ds.filter((d) => d.venue_id === ds[0]!.venue_id);

    await setStatus('disabled');
    const before = (await credits('merchant')).length;
    await pay(venue1[0]!); // 200 fen: fee 12, net 188; the partner's 20% stays with the merchant
    expect(await credits('partner')).toEqual([]);
    expect((await credits('merchant')).slice(before)).toEqual([188]);

    await setStatus('active');
    await pay(venue1[1]!);
    expect(await credits('partner')).toEqual([37]);
    await w.settle();
    await assertLedgerInvariants(w.database.db);
  });
});
