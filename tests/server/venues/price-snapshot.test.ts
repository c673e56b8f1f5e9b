/**
 * Orders keep what they were paid at: on the whole money path (real app, WeChat sandbox cashier, device simulator),
 * a member recharges with a package and pays for a device at a price; the merchant then edits that package and that
 * price. The orders, the member's histories and the wallet keep the old amounts; a recharge already waiting at the
 * cashier is credited with the bonus it was offered. Prices and packages that orders refer to cannot be deleted
 * (409, nothing changed), only deactivated, and end users then see exactly the active ones.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ConsumptionHistoryItem,
  Page,
  PayResponse,
  RechargeHistoryItem,
  RechargePackage,
  ServicePrice,
  UserProfile,
} from '../../../src/domain/api';
import type { Package } from '../../../src/domain/packages.schema';
import type { VenuePrice } from '../../../src/domain/venues.schema';
import { audit_log, orders, packages, service_prices } from '../../../server/db/schema';
import { as, send } from './catalogue-fixtures';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices, pressConfirmAtCashier, rechargeViaCashier } from '../money/money-harness';
import { createTestApp, ONLINE_WORLD, postJson, type TestWorld, withCookie } from '../test-app';

let w: TestWorld;
let staff: string;
let merchantId: number;
let venueId: number;
let deviceId: number;

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
  const [d] = await demoDevices(w);
  merchantId = d!.merchant_id;
  venueId = d!.venue_id;
  deviceId = d!.id;
  const login = await w.json<{ token: string }>(
    '/backend/auth/login',
    postJson({ username: 'merchant', password: 'demo1234' }),
  );
  staff = login.body.token;
});
afterAll(async () => w?.close());

const staffPackages = async () =>
  (await w.json<Page<Package>>('/backend/merchant/packages', as(staff))).body.items;
const userPackages = async (cookie: string) =>
  (
    await w.json<{ items: RechargePackage[] }>(
      `/backend/user/packages?merchant_id=${merchantId}`,
      withCookie(cookie),
    )
  ).body.items;
const staffPrices = async () =>
  (await w.json<Page<VenuePrice>>(`/backend/merchant/venues/${venueId}/prices`, as(staff))).body.items;
const userPrices = async () =>
  (await w.json<{ items: ServicePrice[] }>(`/backend/api/venue-service-prices?venue_id=${venueId}`)).body
    .items;
const wallet = async (cookie: string) =>
  (await w.json<UserProfile>('/backend/user/profile', withCookie(cookie))).body.wallets.find(
    (x) => x.merchant_id === merchantId,
  );
const snapshot = async () => ({
  orders: await w.database.db.select().from(orders).orderBy(orders.id),
  prices: await w.database.db.select().from(service_prices).orderBy(service_prices.id),
  packages: await w.database.db.select().from(packages).orderBy(packages.id),
  audits: (await w.database.db.select({ n: count() }).from(audit_log))[0]!.n,
});

describe('what end users see', () => {
  it("exactly the active packages and prices, in the merchant's order", async () => {
    const { cookie } = await w.signIn('o-catalogue-see');
    const pick = (p: { id: number; name: string; pay_fen: number; bonus_fen: number }) => ({
      id: p.id,
      name: p.name,
      pay_fen: p.pay_fen,
      bonus_fen: p.bonus_fen,
    });
    const added = await w.json<Package>(
      '/backend/merchant/packages',
      as(staff, send('POST', { name: '充 30 送 2', pay_fen: 3000, bonus_fen: 200, active: false })),
    );
    expect(added.status).toBe(201);
    expect(await userPackages(cookie)).toEqual((await staffPackages()).filter((p) => p.active).map(pick));
    await w.request(`/backend/merchant/packages/${added.body.id}`, as(staff, send('PUT', { active: true })));
    const ids = (await staffPackages()).map((p) => p.id);
    await w.request('/backend/merchant/packages/order', as(staff, send('PUT', { ids: [...ids].reverse() })));
    const seen = await userPackages(cookie);
    expect(seen).toEqual((await staffPackages()).filter((p) => p.active).map(pick));
    expect(seen.map((p) => p.name)).toEqual(['充 30 送 2', '充 100 送 15', '充 50 送 5']);
    await w.request('/backend/merchant/packages/order', as(staff, send('PUT', { ids })));
    await w.request(`/backend/merchant/packages/${added.body.id}`, as(staff, send('DELETE', {})));

    const [, second] = await staffPrices();
    await w.request(
      `/backend/merchant/venues/${venueId}/prices/${second!.id}`,
      as(staff, send('PUT', { active: false })),
    );
    const active = (await staffPrices()).filter((p) => p.active);
    expect(await userPrices()).toEqual(
      active.map((p) => ({ id: p.id, name: p.name, minutes: p.minutes, price_fen: p.price_fen })),
    );
    // A deactivated price cannot be paid for, even by its id.
    const refused = await w.json<{ code: string }>(
      '/backend/user/pay',
      withCookie(
        cookie,
        postJson({ device_id: deviceId, venue_id: venueId, price_id: second!.id, method: 'wallet' }),
      ),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('PRICE_NOT_FOUND');
    await w.request(
      `/backend/merchant/venues/${venueId}/prices/${second!.id}`,
      as(staff, send('PUT', { active: true })),
    );
  });
});

describe('orders keep what they were paid at', () => {
  it('editing a package or a price changes no past order, history or wallet', async () => {
    const { cookie } = await w.signIn('o-catalogue-snapshot');
    const [pkg] = await staffPackages(); // 充 50 送 5
    await rechargeViaCashier(w, cookie, merchantId, pkg!.id);
    const [price] = await staffPrices(); // 30 分钟 ¥2.00
    const paid = await w.json<PayResponse>(
      '/backend/user/pay',
      withCookie(
        cookie,
        postJson({ device_id: deviceId, venue_id: venueId, price_id: price!.id, method: 'wallet' }),
      ),
    );
    expect(paid.status).toBe(201);
    await w.settle();
    const ordersBefore = await w.database.db.select().from(orders).orderBy(orders.id);
    const walletBefore = await wallet(cookie);
    expect(walletBefore).toMatchObject({ balance_fen: 5500 - price!.price_fen });

    const editedPrice = await w.json<VenuePrice>(
      `/backend/merchant/venues/${venueId}/prices/${price!.id}`,
      as(staff, send('PUT', { price_fen: 999, minutes: 45, name: '45 分钟' })),
    );
    expect(editedPrice.body).toMatchObject({ price_fen: 999, minutes: 45, order_count: 1 });
    const editedPkg = await w.json<Package>(
      `/backend/merchant/packages/${pkg!.id}`,
      as(staff, send('PUT', { pay_fen: 6000, bonus_fen: 100 })),
    );
    expect(editedPkg.body).toMatchObject({ pay_fen: 6000, bonus_fen: 100, order_count: 1 });

    expect(await w.database.db.select().from(orders).orderBy(orders.id)).toEqual(ordersBefore);
    expect(await wallet(cookie)).toEqual(walletBefore);
    const consumed = await w.json<Page<ConsumptionHistoryItem>>(
      '/backend/user/consumption-history',
      withCookie(cookie),
    );
    expect(consumed.body.items[0]).toMatchObject({ amount_fen: price!.price_fen, minutes: price!.minutes });
    const recharged = await w.json<Page<RechargeHistoryItem>>(
      '/backend/user/recharge-history',
      withCookie(cookie),
    );
    expect(recharged.body.items[0]).toMatchObject({ amount_fen: 5000, bonus_fen: 500 });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('a recharge waiting at the cashier is credited with the bonus it was offered, whatever the edit', async () => {
    const { cookie } = await w.signIn('o-catalogue-pending');
    const [pkg] = await staffPackages(); // now 充 60 送 1 after the edit above
    const started = await w.json<{ jsapi: { cashier_url: string } }>(
      '/backend/user/recharge',
      withCookie(cookie, postJson({ merchant_id: merchantId, package_id: pkg!.id })),
    );
    expect(started.status).toBe(201);
    await w.request(`/backend/merchant/packages/${pkg!.id}`, as(staff, send('PUT', { bonus_fen: 3000 })));
    const confirmed = await pressConfirmAtCashier(w, started.body.jsapi.cashier_url);
    expect(confirmed.status).toBe(303);
    await w.settle();
    expect(await wallet(cookie)).toMatchObject({ principal_fen: pkg!.pay_fen, bonus_fen: pkg!.bonus_fen });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('a price or package that orders refer to cannot be deleted: 409 with a clear message, nothing changed', async () => {
    const before = await snapshot();
    const [price] = (await staffPrices()).filter((p) => p.order_count > 0);
    const delPrice = await w.json<{ code: string; message: string }>(
      `/backend/merchant/venues/${venueId}/prices/${price!.id}`,
      as(staff, { method: 'DELETE' }),
    );
    expect(delPrice.status).toBe(409);
    expect(delPrice.body.code).toBe('PRICE_IN_USE');
    expect(delPrice.body.message).toMatch(/笔订单.*停用/);
    const [pkg] = (await staffPackages()).filter((p) => p.order_count > 0);
    const delPkg = await w.json<{ code: string; message: string }>(
      `/backend/merchant/packages/${pkg!.id}`,
      as(staff, { method: 'DELETE' }),
    );
    expect(delPkg.status).toBe(409);
    expect(delPkg.body.code).toBe('PACKAGE_IN_USE');
    expect(await snapshot()).toEqual(before);
    // Deactivating is the way out: end users no longer see it, the orders stay as they were.
    await w.request(`/backend/merchant/packages/${pkg!.id}`, as(staff, send('PUT', { active: false })));
    const { cookie } = await w.signIn('o-catalogue-after');
    expect((await userPackages(cookie)).map((p) => p.id)).not.toContain(pkg!.id);
    expect(await w.database.db.select().from(orders).orderBy(orders.id)).toEqual(before.orders);
    const [row] = await w.database.db.select().from(packages).where(eq(packages.id, pkg!.id));
    expect(row!.active).toBe(false);
  });
});
