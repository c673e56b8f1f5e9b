/**
 * Recharge end to end over HTTP: packages, POST /backend/user/recharge, the sandbox cashier's 确认支付 (a real
 * signed, encrypted notification to /backend/wechat/pay/notify), the wallet with principal and bonus apart, the
 * history; Idempotency-Key; refusals; and property-based bad input that must answer 4xx and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { asc, count } from 'drizzle-orm';
import { assertLedgerInvariants } from '../money/invariants';
import { rechargeViaCashier } from '../money/money-harness';
import { createTestApp, ONLINE_WORLD, postJson, type TestWorld, withCookie } from '../test-app';
import { devices, ledger_entries, orders, wallets } from '../../../server/db/schema';
import type { Page, RechargeHistoryItem, RechargePackage, UserProfile } from '../../../src/domain/api';

let w: TestWorld;
let merchantId: number;

async function snapshot() {
  const db = w.database.db;
  const [o] = await db.select({ n: count() }).from(orders);
  const [e] = await db.select({ n: count() }).from(ledger_entries);
  const ws = await db.select().from(wallets).orderBy(wallets.id);
  return { orders: o?.n, entries: e?.n, wallets: ws.map((x) => [x.id, x.principal_fen, x.bonus_fen]) };
}

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
  const [d] = await w.database.db.select().from(devices).orderBy(asc(devices.id)).limit(1);
  merchantId = d!.merchant_id;
});
afterAll(async () => {
  await w?.close();
});

describe('recharge', () => {
  it('needs a WeChat session', async () => {
    const res = await w.json('/backend/user/recharge', postJson({ merchant_id: merchantId, package_id: 1 }));
    expect(res).toEqual({ status: 401, body: { code: 'WECHAT_AUTH_REQUIRED', message: '需要微信授权' } });
  });

  it('pays a package at the sandbox cashier and credits principal and bonus apart', async () => {
    const { cookie, member_id } = await w.signIn('o-recharge-1');
    const pk = await w.json<{ items: RechargePackage[] }>(
      `/backend/user/packages?merchant_id=${merchantId}`,
      withCookie(cookie),
    );
    expect(pk.status).toBe(200);
    expect(pk.body.items.map((p) => [p.pay_fen, p.bonus_fen])).toEqual([
      [5000, 500],
      [10000, 1500],
    ]);

    // Before the first recharge the pay page still sees a zero wallet at this merchant.
    const before = await w.json<UserProfile>(
      `/backend/user/profile?merchant_id=${merchantId}`,
      withCookie(cookie),
    );
    expect(before.body.wallets).toEqual([
      {
        merchant_id: merchantId,
        merchant_name: '星河共享自助',
        balance_fen: 0,
        principal_fen: 0,
        bonus_fen: 0,
      },
    ]);

    const orderNo = await rechargeViaCashier(w, cookie, merchantId, pk.body.items[0]!.id);
    const status = await w.json(`/backend/api/query?order_no=${orderNo}`);
    expect(status.body).toEqual({ order_no: orderNo, kind: 'recharge', status: 'paid', amount_fen: 5000 });

    const profile = await w.json<UserProfile>('/backend/user/profile', withCookie(cookie));
    expect(profile.body.wallets).toEqual([
      {
        merchant_id: merchantId,
        merchant_name: '星河共享自助',
        balance_fen: 5500,
        principal_fen: 5000,
        bonus_fen: 500,
      },
    ]);
    expect(profile.body.member.id).toBe(member_id);

    await rechargeViaCashier(w, cookie, merchantId, pk.body.items[1]!.id);
    const hist = await w.json<Page<RechargeHistoryItem>>(
      '/backend/user/recharge-history?page=1&page_size=1',
      withCookie(cookie),
    );
    expect(hist.body.total).toBe(2);
    expect(hist.body.items).toHaveLength(1);
    expect(hist.body.items[0]).toMatchObject({
      amount_fen: 10000,
      bonus_fen: 1500,
      method: 'wechat',
      status: 'paid',
    });
    const page2 = await w.json<Page<RechargeHistoryItem>>(
      '/backend/user/recharge-history?page=2&page_size=1',
      withCookie(cookie),
    );
    expect(page2.body.items[0]).toMatchObject({ order_no: orderNo, amount_fen: 5000, bonus_fen: 500 });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('answers a repeated Idempotency-Key with the first order', async () => {
    const { cookie } = await w.signIn('o-recharge-idem');
    const init = withCookie(
      cookie,
      postJson({ merchant_id: merchantId, package_id: 1 }, { 'Idempotency-Key': 'r-1' }),
    );
    const [a, b] = await Promise.all([
      w.json<{ order: { order_no: string } }>('/backend/user/recharge', init),
      w.json<{ order: { order_no: string } }>('/backend/user/recharge', init),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.order.order_no).toBe(b.body.order.order_no);
    const c = await w.json(
      '/backend/user/recharge',
      withCookie(cookie, postJson({ merchant_id: merchantId, package_id: 2 }, { 'Idempotency-Key': 'r-1' })),
    );
    expect(c.status).toBe(409);
    expect(c.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    await assertLedgerInvariants(w.database.db);
  });

  it('refuses a package of another merchant or none, with its own message', async () => {
    const { cookie } = await w.signIn('o-recharge-bad');
    const before = await snapshot();
    const res = await w.json(
      '/backend/user/recharge',
      withCookie(cookie, postJson({ merchant_id: merchantId + 1, package_id: 1 })),
    );
    expect(res).toMatchObject({
      status: 400,
      body: { code: 'PACKAGE_NOT_FOUND', message: '充值套餐不存在或已下架，请重新选择' },
    });
    const res2 = await w.json(
      '/backend/user/recharge',
      withCookie(cookie, postJson({ merchant_id: merchantId, package_id: 999 })),
    );
    expect(res2.status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  it('answers bad query parameters of the read endpoints with 400 in Chinese', async () => {
    const { cookie } = await w.signIn('o-recharge-queries');
    for (const path of [
      '/backend/user/packages',
      '/backend/user/packages?merchant_id=abc',
      '/backend/user/packages?merchant_id=-1',
      '/backend/user/profile?merchant_id=1.5',
      '/backend/user/recharge-history?page=0',
      '/backend/user/recharge-history?page_size=1000',
      '/backend/user/consumption-history?page=x',
    ]) {
      const res = await w.json<{ code: string; message: string }>(path, withCookie(cookie));
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.message).toMatch(/[\u4e00-\u9fa5]/);
    }
    // Another merchant's packages: an empty list, not someone else's data.
    const other = await w.json<{ items: unknown[] }>(
      `/backend/user/packages?merchant_id=${merchantId + 100}`,
      withCookie(cookie),
    );
    expect(other).toEqual({ status: 200, body: { items: [] } });
  });

  it('answers bad input with 4xx and changes nothing', async () => {
    const { cookie } = await w.signIn('o-recharge-fuzz');
    const before = await snapshot();
    const junk = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.integer({ min: -1_000_000, max: 0 }),
      fc.double({ noInteger: true }),
      fc.string({ maxLength: 300 }).filter((s) => !(Number(s) > 0)),
      fc.constant('1e3'),
      fc.constant(Number.MAX_SAFE_INTEGER),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.constant({ $gt: 0 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ merchant_id: junk, package_id: junk }, { requiredKeys: [] }),
          fc.string({ maxLength: 200 }),
          fc.constant('{"merchant_id":1,'),
          fc.constant('x'.repeat(70_000)),
        ),
        fc.option(fc.string({ maxLength: 150 }), { nil: undefined }),
        async (body, key) => {
          const headers: Record<string, string> = {};
          if (key !== undefined && /^[\x21-\x7e]*$/.test(key) && (key.length === 0 || key.length > 100)) {
            headers['Idempotency-Key'] = key;
          }
          const res = await w.request(
            '/backend/user/recharge',
            withCookie(cookie, postJson(typeof body === 'string' ? body : JSON.stringify(body), headers)),
          );
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          const err = (await res.json()) as { code: string; message: string };
          expect(err.message).toMatch(/[\u4e00-\u9fa5]/);
        },
      ),
      { numRuns: 60 },
    );
    expect(await snapshot()).toEqual(before);
    await assertLedgerInvariants(w.database.db);
  });
});
