/**
 * Concurrency of wallet pays over HTTP (run on PGlite and, with TEST_DATABASE_URL, on PostgreSQL where the requests
 * really run in parallel on a connection pool): 50 simultaneous pays against a balance that covers one give exactly
 * one order; against a balance that covers four (with five devices free) exactly four. The wallet never goes negative
 * and the shared ledger invariants hold afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { assertLedgerInvariants } from './invariants';
import { demoDevices, rechargeViaCashier } from './money-harness';
import { createTestApp, ONLINE_WORLD, postJson, type TestWorld, withCookie } from '../test-app';
import { orders, service_prices } from '../../../server/db/schema';
import type { UserProfile } from '../../../src/domain/api';

let w: TestWorld;

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
});
afterAll(async () => {
  await w?.close();
});

/** Adds a price of `fen` to both venues; returns venue id -> price id. */
async function priceOf(fen: number) {
  const ds = await demoDevices(w);
  const venues = [...new Set(ds.map((d) => d.venue_id))];
  const rows = await w.database.db
    .insert(service_prices)
    .values(venues.map((v) => ({ venue_id: v, name: `测试 ${fen}`, minutes: 5, price_fen: fen, sort: 50 })))
    .returning();
  return { ds, priceByVenue: new Map(rows.map((r) => [r.venue_id, r.id])) };
}

async function fiftyPays(openid: string, priceFen: number) {
  const { ds, priceByVenue } = await priceOf(priceFen);
  const s = await w.signIn(openid);
  await rechargeViaCashier(w, s.cookie, ds[0]!.merchant_id, 1); // 5000 + 500 bonus
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => {
      const d = ds[i % ds.length]!;
      return w.json<{ code?: string }>(
        '/backend/user/pay',
        withCookie(
          s.cookie,
          postJson({
            device_id: d.id,
            venue_id: d.venue_id,
            price_id: priceByVenue.get(d.venue_id),
            method: 'wallet',
          }),
        ),
      );
    }),
  );
  await w.settle();
  const mine = await w.database.db
    .select()
    .from(orders)
    .where(and(eq(orders.member_id, s.member_id), eq(orders.kind, 'consume')));
  const profile = await w.json<UserProfile>('/backend/user/profile', withCookie(s.cookie));
  return { results, mine, wallet: profile.body.wallets[0]!, ds };
}

describe('50 simultaneous wallet pays', () => {
  it('give exactly one order when the balance covers one', async () => {
    const { results, mine, wallet } = await fiftyPays('o-race-one', 5500);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const refusals = results.filter((r) => r.status !== 201);
    expect(refusals.every((r) => r.status === 409)).toBe(true);
    expect(new Set(refusals.map((r) => r.body.code))).toEqual(
      new Set(
        refusals.map((r) => r.body.code).filter((c) => c === 'INSUFFICIENT_BALANCE' || c === 'DEVICE_BUSY'),
      ),
    );
    expect(refusals.some((r) => r.body.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect(mine).toHaveLength(1);
    expect(wallet).toMatchObject({ principal_fen: 0, bonus_fen: 0 });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('give exactly four orders when the balance covers four, with five devices free', async () => {
    // The first test left one device running (for 5 minutes), so five are free; 55.00 covers four pays of 12.00.
    const { results, mine, wallet } = await fiftyPays('o-race-four', 1200);
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.status !== 201).every((r) => r.status === 409)).toBe(true);
    expect(mine).toHaveLength(4);
    expect(new Set(mine.map((o) => o.device_id)).size).toBe(4);
    // Principal first, then bonus: 4 x 12.00 = 48.00 of the 50.00 principal; the 5.00 bonus is untouched.
    expect(wallet).toMatchObject({ principal_fen: 200, bonus_fen: 500 });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});
