/**
 * Disabling a merchant through `PUT /backend/admin/merchants/:id`, on the whole money path (real app, DB, WeChat
 * sandbox, device simulator): its staff's tokens are revoked at once and their sign-in is refused with a clear
 * message; its devices refuse new payments and recharges (409 MERCHANT_DISABLED, nothing changed) and the public
 * venue says so; sessions already running finish normally (one runs to its end, one is stopped early and refunded).
 * Enabling it again restores sign-in (with a new token: the old ones stay revoked) and payments.
 */
import { and, count, eq, inArray, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResponse, PublicVenue, ServicePrice, StopResponse } from '../../../src/domain/api';
import type { Merchant } from '../../../src/domain/merchants.schema';
import { accounts, auth_tokens, device_sessions, ledger_entries, orders } from '../../../server/db/schema';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices, rechargeViaCashier } from '../money/money-harness';
import { createTestApp, ONLINE_WORLD, postJson, type TestWorld, withCookie } from '../test-app';

let w: TestWorld;
let ds: Awaited<ReturnType<typeof demoDevices>>;
type ErrorBody = { code: string; message: string };
/** The staff's tokens from before the merchant was disabled. */
let oldTokens: string[] = [];

const bearer = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
});
async function login(username: string, password = 'demo1234') {
  return w.json<{ token: string } & ErrorBody>('/backend/auth/login', postJson({ username, password }));
}
async function token(username: string) {
  const res = await login(username);
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status}`);
  return res.body.token;
}
const setStatus = (admin: string, status: 'active' | 'disabled') =>
  w.json<Merchant>('/backend/admin/merchants/1', bearer(admin, { ...postJson({ status }), method: 'PUT' }));
async function firstPrice(venueId: number) {
  const r = await w.json<{ items: ServicePrice[] }>(`/backend/api/venue-service-prices?venue_id=${venueId}`);
  return r.body.items[0]!;
}
async function payWallet(cookie: string, d: (typeof ds)[number]) {
  const price = await firstPrice(d.venue_id);
  return w.json<PayResponse & ErrorBody>(
    '/backend/user/pay',
    withCookie(
      cookie,
      postJson({ device_id: d.id, venue_id: d.venue_id, price_id: price.id, method: 'wallet' }),
    ),
  );
}
async function moneyRows() {
  const db = w.database.db;
  return {
    orders: (await db.select({ n: count() }).from(orders))[0]!.n,
    entries: (await db.select({ n: count() }).from(ledger_entries))[0]!.n,
  };
}

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
  ds = await demoDevices(w);
});
afterAll(async () => {
  await w?.close();
});

describe('a disabled merchant', () => {
  it('signs its staff out, refuses their sign-in and new payments; running sessions finish', async () => {
    const admin = await token('admin');
    const staff = {
      merchant: await token('merchant'),
      employee: await token('employee'),
      partner: await token('partner'),
    };
    const member = await w.signIn('o-disabled-merchant');
    await rechargeViaCashier(w, member.cookie, 1, 1);
    const toEnd = await payWallet(member.cookie, ds[0]!);
    const toStop = await payWallet(member.cookie, ds[1]!);
    expect([toEnd.status, toStop.status]).toEqual([201, 201]);
    await w.settle();

    oldTokens = Object.values(staff);
    const off = await setStatus(admin, 'disabled');
    expect(off.status).toBe(200);
    expect(off.body.status).toBe('disabled');

    // Signed out at once: every token of the merchant's staff is revoked, the admin's is not.
    for (const [name, t] of Object.entries(staff)) {
      const me = await w.json<ErrorBody>('/backend/auth/me', bearer(t));
      expect(me.status, name).toBe(401);
    }
    expect((await w.request('/backend/auth/me', bearer(admin))).status).toBe(200);
    const staffIds = w.database.db
      .select({ id: accounts.id })
      .from(accounts)
      .where(eq(accounts.merchant_id, 1));
    const live = await w.database.db
      .select({ n: count() })
      .from(auth_tokens)
      .where(and(inArray(auth_tokens.account_id, staffIds), isNull(auth_tokens.revoked_at)));
    expect(live[0]!.n).toBe(0);

    // Sign-in refused with a message that says why.
    for (const name of ['merchant', 'employee', 'partner']) {
      const again = await login(name);
      expect(again.status, name).toBe(403);
      expect(again.body).toMatchObject({
        code: 'MERCHANT_DISABLED',
        message: '商户已停用，请联系平台管理员',
      });
    }

    // New payments and recharges at its devices are refused, and nothing moves.
    const before = await moneyRows();
    const refused = await payWallet(member.cookie, ds[2]!);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'MERCHANT_DISABLED', message: '该商户已停止营业' });
    const wechat = await w.json<ErrorBody>(
      '/backend/user/pay',
      withCookie(
        member.cookie,
        postJson({
          device_id: ds[3]!.id,
          venue_id: ds[3]!.venue_id,
          price_id: (await firstPrice(ds[3]!.venue_id)).id,
          method: 'wechat',
        }),
      ),
    );
    expect(wechat.status).toBe(409);
    expect(wechat.body.code).toBe('MERCHANT_DISABLED');
    const recharge = await w.json<ErrorBody>(
      '/backend/user/recharge',
      withCookie(member.cookie, postJson({ merchant_id: 1, package_id: 1 })),
    );
    expect(recharge.status).toBe(409);
    expect(recharge.body.code).toBe('MERCHANT_DISABLED');
    expect(await moneyRows()).toEqual(before);
    const venue = await w.json<PublicVenue>(`/backend/api/venues/${ds[0]!.venue_id}`);
    expect(venue.body.merchant).toMatchObject({ id: 1, status: 'disabled' });

    // The sessions paid before finish normally: one stopped early (refunded), one running to its end.
    const stop = await w.json<StopResponse>(
      `/backend/user/using/${toStop.body.order.order_no}/stop`,
      withCookie(member.cookie, { method: 'POST' }),
    );
    expect(stop.status).toBe(200);
    expect(stop.body.refund_fen).toBeGreaterThan(0);
    // Its time is up (the clock of this world is the wall clock, so the session's end is moved instead).
    const [endOrder] = await w.database.db
      .select({ id: orders.id })
      .from(orders)
      .where(eq(orders.order_no, toEnd.body.order.order_no));
    await w.database.db
      .update(device_sessions)
      .set({ ends_at: new Date(Date.now() - 1000) })
      .where(eq(device_sessions.order_id, endOrder!.id));
    // The world's own ticker may end it first under load; either way it ends exactly once (invariants below).
    await w.devices.tick();
    const [ended] = await w.database.db
      .select()
      .from(orders)
      .where(eq(orders.order_no, toEnd.body.order.order_no));
    expect(ended!.status).toBe('completed');
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('enabled again: staff sign in with new tokens (the old ones stay revoked) and payments work', async () => {
    const admin = await token('admin');
    const on = await setStatus(admin, 'active');
    expect(on.body.status).toBe('active');
    const fresh = await login('merchant');
    expect(fresh.status).toBe(200);
    expect((await w.request('/backend/auth/me', bearer(fresh.body.token))).status).toBe(200);
    expect(oldTokens).toHaveLength(3);
    for (const old of oldTokens) expect((await w.request('/backend/auth/me', bearer(old))).status).toBe(401);
    const member = await w.signIn('o-disabled-merchant');
    await w.settle();
    const paid = await payWallet(member.cookie, ds[2]!);
    expect(paid.status).toBe(201);
    await w.settle();
    const venue = await w.json<PublicVenue>(`/backend/api/venues/${ds[2]!.venue_id}`);
    expect(venue.body.merchant.status).toBe('active');
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});
