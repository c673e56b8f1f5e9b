/**
 * POST /backend/user/pay over HTTP on the real app, DB, WeChat sandbox and device simulator: wallet pay that starts
 * the device, every refusal with its own code and message (and nothing changed), Idempotency-Key, WeChat JSAPI pay
 * through the sandbox cashier, the order query, stop early with its pro-rata refund, the consumption history, and
 * property-based bad input. The shared ledger invariants are checked after each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { count, eq, inArray, sql } from 'drizzle-orm';
import { assertLedgerInvariants } from '../money/invariants';
import { demoDevices, pressConfirmAtCashier, rechargeViaCashier } from '../money/money-harness';
import { createTestApp, ONLINE_WORLD, postJson, type TestWorld, withCookie } from '../test-app';
import {
  device_sessions,
  devices,
  ledger_entries,
  orders,
  service_prices,
  wallets,
} from '../../../server/db/schema';
import type {
  ConsumptionHistoryItem,
  Page,
  PayResponse,
  ServicePrice,
  StopResponse,
  UserProfile,
} from '../../../src/domain/api';

let w: TestWorld;
type DeviceRow = Awaited<ReturnType<typeof demoDevices>>[number];
let ds: DeviceRow[];
let merchantId: number;

async function pricesOf(venueId: number) {
  const r = await w.json<{ items: ServicePrice[] }>(`/backend/api/venue-service-prices?venue_id=${venueId}`);
  return r.body.items;
}

async function snapshot() {
  const db = w.database.db;
  const [o] = await db.select({ n: count() }).from(orders);
  const [e] = await db.select({ n: count() }).from(ledger_entries);
  const ws = await db.select().from(wallets).orderBy(wallets.id);
  return { orders: o?.n, entries: e?.n, wallets: ws.map((x) => [x.id, x.principal_fen, x.bonus_fen]) };
}

async function funded(openid: string) {
  const s = await w.signIn(openid);
  await rechargeViaCashier(w, s.cookie, merchantId, 1); // 50.00 + 5.00 bonus
  return s;
}

const pay = (cookie: string, body: unknown, headers: Record<string, string> = {}) =>
  w.json<PayResponse & { code?: string; message?: string; details?: Record<string, unknown> }>(
    '/backend/user/pay',
    withCookie(cookie, postJson(body, headers)),
  );

beforeAll(async () => {
  w = await createTestApp(ONLINE_WORLD);
  ds = await demoDevices(w);
  merchantId = ds[0]!.merchant_id;
});
afterAll(async () => {
  await w?.close();
});

describe('wallet pay', () => {
  it('debits, splits, starts the device; stop early refunds unused time; history shows it', async () => {
    const { cookie } = await funded('o-pay-wallet');
    const d = ds[0]!;
    const [price] = await pricesOf(d.venue_id);
    const res = await pay(cookie, {
      device_id: d.id,
      venue_id: d.venue_id,
      price_id: price!.id,
      method: 'wallet',
    });
    expect(res.status).toBe(201);
    expect(res.body.order).toMatchObject({ status: 'paid', amount_fen: price!.price_fen });
    expect(res.body.session).toMatchObject({ device_id: d.id, device_name: d.name, status: 'starting' });

    await w.settle();
    const q = await w.json(`/backend/api/query?order_no=${res.body.order.order_no}`);
    expect(q.body).toMatchObject({ kind: 'consume', status: 'started', amount_fen: price!.price_fen });
    const profile = await w.json<UserProfile>('/backend/user/profile', withCookie(cookie));
    expect(profile.body.wallets[0]).toMatchObject({ principal_fen: 5000 - price!.price_fen, bonus_fen: 500 });
    await assertLedgerInvariants(w.database.db, { settled: true });

    const stop = await w.json<StopResponse>(
      `/backend/user/using/${res.body.order.order_no}/stop`,
      withCookie(cookie, { method: 'POST' }),
    );
    expect(stop.status).toBe(200);
    expect(stop.body).toMatchObject({ refund_to: 'wallet' });
    expect(stop.body.refund_fen).toBeGreaterThan(0);
    const after = await w.json<UserProfile>('/backend/user/profile', withCookie(cookie));
    expect(after.body.wallets[0]!.balance_fen).toBe(5500 - price!.price_fen + stop.body.refund_fen);

    const hist = await w.json<Page<ConsumptionHistoryItem>>(
      '/backend/user/consumption-history',
      withCookie(cookie),
    );
    expect(hist.body.total).toBe(1);
    expect(hist.body.items[0]).toMatchObject({
      order_no: res.body.order.order_no,
      device_name: d.name,
      amount_fen: price!.price_fen,
      refunded_fen: stop.body.refund_fen,
      method: 'wallet',
      status: 'refunded',
      minutes: price!.minutes,
    });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('consumption history is paged, newest first', async () => {
    const { cookie } = await funded('o-pay-history-pages');
    const d = ds[1]!;
    const [price] = await pricesOf(d.venue_id);
    const orderNos: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await pay(cookie, {
        device_id: d.id,
        venue_id: d.venue_id,
        price_id: price!.id,
        method: 'wallet',
      });
      expect(res.status).toBe(201);
      orderNos.push(res.body.order.order_no);
      await w.settle();
      const stop = await w.json(
        `/backend/user/using/${res.body.order.order_no}/stop`,
        withCookie(cookie, { method: 'POST' }),
      );
      expect(stop.status).toBe(200);
    }
    const page1 = await w.json<Page<ConsumptionHistoryItem>>(
      '/backend/user/consumption-history?page=1&page_size=2',
      withCookie(cookie),
    );
    const page2 = await w.json<Page<ConsumptionHistoryItem>>(
      '/backend/user/consumption-history?page=2&page_size=2',
      withCookie(cookie),
    );
    expect(page1.body).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(page1.body.items.map((i) => i.order_no)).toEqual([orderNos[2], orderNos[1]]);
    expect(page2.body).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(page2.body.items.map((i) => i.order_no)).toEqual([orderNos[0]]);
    const bad = await w.json('/backend/user/consumption-history?page=0&page_size=1000', withCookie(cookie));
    expect(bad.status).toBe(400);
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('refuses each bad case with its own code and Chinese message, changing nothing', async () => {
    const { cookie } = await funded('o-pay-refusals');
    const [d1, d2, d3, d4] = ds;
    const p1 = (await pricesOf(d1!.venue_id))[0]!;
    const p2 = (await pricesOf(d4!.venue_id))[0]!;
    const before = await snapshot();

    const mismatch = await pay(cookie, {
      device_id: d2!.id,
      venue_id: d4!.venue_id,
      price_id: p2.id,
      method: 'wallet',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({
      code: 'VENUE_MISMATCH',
      message: '场地与设备不符，请重新扫描设备上的二维码',
    });

    const otherVenuePrice = await pay(cookie, {
      device_id: d2!.id,
      venue_id: d2!.venue_id,
      price_id: p2.id,
      method: 'wallet',
    });
    expect(otherVenuePrice.status).toBe(400);
    expect(otherVenuePrice.body).toMatchObject({
      code: 'PRICE_OTHER_VENUE',
      message: '所选价格不属于本设备所在场地，请重新选择',
    });

    await w.database.db.update(service_prices).set({ active: false }).where(eq(service_prices.id, p1.id));
    const inactive = await pay(cookie, {
      device_id: d2!.id,
      venue_id: d2!.venue_id,
      price_id: p1.id,
      method: 'wallet',
    });
    expect(inactive.body).toMatchObject({
      code: 'PRICE_NOT_FOUND',
      message: '所选价格不存在或已下架，请重新选择',
    });
    await w.database.db.update(service_prices).set({ active: true }).where(eq(service_prices.id, p1.id));

    const off = await w.json(`/backend/sandbox/devices/${d2!.id}/mode`, postJson({ mode: 'offline' }));
    expect(off.status).toBe(200);
    const offline = await pay(cookie, {
      device_id: d2!.id,
      venue_id: d2!.venue_id,
      price_id: p1.id,
      method: 'wallet',
    });
    expect(offline.status).toBe(409);
    expect(offline.body).toMatchObject({
      code: 'DEVICE_OFFLINE',
      message: '设备离线，请稍后再试或换一台设备',
    });
    await w.json(`/backend/sandbox/devices/${d2!.id}/mode`, postJson({ mode: 'normal' }));
    await w.devices.settle();

    await w.database.db.update(devices).set({ status: 'fault' }).where(eq(devices.id, d3!.id));
    const fault = await pay(cookie, {
      device_id: d3!.id,
      venue_id: d3!.venue_id,
      price_id: p1.id,
      method: 'wallet',
    });
    expect(fault.status).toBe(409);
    expect(fault.body.code).toBe('DEVICE_UNAVAILABLE');
    await w.database.db.update(devices).set({ status: 'idle' }).where(eq(devices.id, d3!.id));

    const missing = await pay(cookie, {
      device_id: 99999,
      venue_id: d1!.venue_id,
      price_id: p1.id,
      method: 'wallet',
    });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('DEVICE_NOT_FOUND');
    expect(await snapshot()).toEqual(before);

    // Insufficient: a price above the balance (55.00).
    const [dear] = await w.database.db
      .insert(service_prices)
      .values({ venue_id: d1!.venue_id, name: '包天', minutes: 600, price_fen: 5501, active: true, sort: 99 })
      .returning();
    const poor = await pay(cookie, {
      device_id: d2!.id,
      venue_id: d2!.venue_id,
      price_id: dear!.id,
      method: 'wallet',
    });
    expect(poor.status).toBe(409);
    expect(poor.body).toEqual({
      code: 'INSUFFICIENT_BALANCE',
      message: '余额不足，请先充值或使用微信支付',
      details: { balance_fen: 5500, amount_fen: 5501 },
    });
    await w.database.db.update(service_prices).set({ active: false }).where(eq(service_prices.id, dear!.id));
    expect(await snapshot()).toEqual(before);

    // Busy: someone else's session runs on the device.
    const other = await funded('o-pay-busy-other');
    const first = await pay(other.cookie, {
      device_id: d2!.id,
      venue_id: d2!.venue_id,
      price_id: p1.id,
      method: 'wallet',
    });
    expect(first.status).toBe(201);
    const busy = await pay(cookie, {
      device_id: d2!.id,
      venue_id: d2!.venue_id,
      price_id: p1.id,
      method: 'wallet',
    });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({
      code: 'DEVICE_BUSY',
      message: '设备正在使用中，请稍后再试或换一台设备',
    });

    const anonymous = await w.json('/backend/user/pay', postJson({ device_id: d1!.id }));
    expect(anonymous).toEqual({
      status: 401,
      body: { code: 'WECHAT_AUTH_REQUIRED', message: '需要微信授权' },
    });
    await w.settle();
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('resolves the session in the pay itself: a dead one answers 401 before anything else, changing nothing', async () => {
    const s = await funded('pay-session-dead');
    const d = ds[0]!;
    const [p] = await pricesOf(d.venue_id);
    const good = { device_id: d.id, venue_id: d.venue_id, price_id: p!.id, method: 'wallet' };
    const dead = { status: 401, body: { code: 'WECHAT_AUTH_REQUIRED', message: '需要微信授权' } };
    // A live session with a bad body or header: 400, as before.
    expect((await pay(s.cookie, { ...good, price_id: 'x' })).status).toBe(400);
    expect((await pay(s.cookie, good, { 'Idempotency-Key': 'x'.repeat(101) })).status).toBe(400);
    const out = await w.request('/backend/user/logout', withCookie(s.cookie, { method: 'POST' }));
    expect(out.status).toBe(200);
    const before = await snapshot();
    for (const [body, headers] of [
      [good, {}],
      [{ ...good, method: 'wechat' }, {}],
      [{ ...good, price_id: 'x' }, {}],
      [good, { 'Idempotency-Key': 'x'.repeat(101) }],
    ] as const) {
      const r = await pay(s.cookie, body, headers);
      expect({ status: r.status, body: r.body }).toEqual(dead);
    }
    // A cookie no session has, of a length one could have: the same.
    const bogus = await pay('sid=' + 'b'.repeat(43), good);
    expect({ status: bogus.status, body: bogus.body }).toEqual(dead);
    expect(await snapshot()).toEqual(before);
    // An expired session: the same, at the pay's own clock.
    const t = await funded('pay-session-expired');
    w.advance(30 * 24 * 3600_000 + 1000);
    try {
      const r = await pay(t.cookie, good);
      expect({ status: r.status, body: r.body }).toEqual(dead);
    } finally {
      w.advance(-(30 * 24 * 3600_000 + 1000));
    }
    await assertLedgerInvariants(w.database.db);
  });

  // PGlite runs one transaction at a time: there a session cannot appear between a pay's check and its insert.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "answers busy, writing nothing, when a session takes the device between the pay's check and its insert",
    async () => {
      const { cookie } = await funded('o-pay-busy-race');
      const db = w.database.db;
      const active = await db
        .select({ device_id: device_sessions.device_id })
        .from(device_sessions)
        .where(inArray(device_sessions.status, ['starting', 'running']));
      const d = ds.find((x) => !active.some((a) => a.device_id === x.id))!;
      const [price] = await pricesOf(d.venue_id);
      const before = await snapshot();
      let release!: () => void;
      const held = new Promise<void>((ok) => (release = ok));
      let inserted!: () => void;
      const sessionInserted = new Promise<void>((ok) => (inserted = ok));
      // Another writer's session on the device, not yet committed: the pay's first statement does not see it.
      const other = db.transaction(async (tx) => {
        const [o] = await tx
          .insert(orders)
          .values({
            order_no: `race-${Date.now()}`,
            kind: 'consume',
            method: 'wechat',
            status: 'pending',
            merchant_id: d.merchant_id,
            device_id: d.id,
            amount_fen: 1,
          })
          .returning();
        const far = new Date(Date.now() + 3600_000);
        const [s] = await tx
          .insert(device_sessions)
          .values({
            order_id: o!.id,
            device_id: d.id,
            minutes: 1,
            status: 'starting',
            ack_deadline: far,
            command_sent_at: new Date(),
          })
          .returning();
        inserted();
        await held;
        return { order: o!, session: s! };
      });
      await sessionInserted;
      const paying = pay(cookie, {
        device_id: d.id,
        venue_id: d.venue_id,
        price_id: price!.id,
        method: 'wallet',
      });
      // The pay's insert now waits on the one-active-session index for the other writer.
      for (let i = 0; ; i++) {
        const waiting = (await db.execute(
          sql`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%device_sessions%'`,
        )) as unknown as { rows: unknown[] };
        if (waiting.rows.length > 0) break;
        if (i > 200) throw new Error('the pay never waited on the device session index');
        await new Promise((ok) => setTimeout(ok, 25));
      }
      release();
      const mine = await other;
      const busy = await paying;
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({ code: 'DEVICE_BUSY' });
      // Nothing of the refused pay: only the other writer's order, no entries, no balance moved.
      expect(await snapshot()).toEqual({ ...before, orders: before.orders! + 1 });
      await db
        .update(device_sessions)
        .set({ status: 'failed', failure_reason: 'test' })
        .where(eq(device_sessions.id, mine.session.id));
      await db.update(orders).set({ status: 'closed' }).where(eq(orders.id, mine.order.id));
      await assertLedgerInvariants(db);
    },
  );

  it('answers the same Idempotency-Key with the first order, even when sent at once', async () => {
    const { cookie } = await funded('o-pay-idem');
    const d = ds[4]!;
    const [price] = await pricesOf(d.venue_id);
    const body = { device_id: d.id, venue_id: d.venue_id, price_id: price!.id, method: 'wallet' };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => pay(cookie, body, { 'Idempotency-Key': 'k-1' })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.order.order_no)).size).toBe(1);
    const again = await pay(cookie, body, { 'Idempotency-Key': 'k-1' });
    expect(again.status).toBe(201);
    expect(again.body.order.order_no).toBe(results[0]!.body.order.order_no);
    const n = await w.database.db
      .select({ n: count() })
      .from(orders)
      .where(eq(orders.idempotency_key, 'k-1'));
    expect(n[0]?.n).toBe(1);
    const profile = await w.json<UserProfile>('/backend/user/profile', withCookie(cookie));
    expect(profile.body.wallets[0]!.balance_fen).toBe(5500 - price!.price_fen);
    // The same key for a different request is refused, not silently answered with the wrong order.
    const reused = await pay(cookie, { ...body, price_id: price!.id + 1 }, { 'Idempotency-Key': 'k-1' });
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    await w.settle();
    await assertLedgerInvariants(w.database.db, { settled: true });
  });
});

describe('WeChat pay', () => {
  it('creates a pending order with JSAPI params; the cashier pays it; the notification starts the device', async () => {
    const { cookie } = await w.signIn('o-pay-wechat');
    const d = ds[5]!;
    const [price] = await pricesOf(d.venue_id);
    const res = await pay(cookie, {
      device_id: d.id,
      venue_id: d.venue_id,
      price_id: price!.id,
      method: 'wechat',
    });
    expect(res.status).toBe(201);
    expect(res.body.order.status).toBe('pending');
    expect(res.body.jsapi).toMatchObject({ signType: 'RSA', package: expect.stringMatching(/^prepay_id=/) });
    expect(res.body.jsapi?.paySign).toMatch(/^[A-Za-z0-9+/=]{100,}$/);
    expect(res.body.jsapi?.cashier_url).toMatch(/^\/backend\/sandbox\/wechatpay\/cashier\?/);
    const pending = await w.json(`/backend/api/query?order_no=${res.body.order.order_no}`);
    expect(pending.body).toMatchObject({ status: 'pending' });
    await assertLedgerInvariants(w.database.db);

    const confirmed = await pressConfirmAtCashier(w, res.body.jsapi!.cashier_url!);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toContain(`order_no=${res.body.order.order_no}`);
    await w.settle();
    const started = await w.json(`/backend/api/query?order_no=${res.body.order.order_no}`);
    expect(started.body).toMatchObject({ status: 'started', amount_fen: price!.price_fen });
    const hist = await w.json<Page<ConsumptionHistoryItem>>(
      '/backend/user/consumption-history',
      withCookie(cookie),
    );
    expect(hist.body.items[0]).toMatchObject({ method: 'wechat', status: 'started', refunded_fen: 0 });
    await assertLedgerInvariants(w.database.db, { settled: true });

    // Stopping early refunds the unused part of a WeChat payment to WeChat, through the outbox (docs/money.md).
    const stop = await w.json<StopResponse>(
      `/backend/user/using/${res.body.order.order_no}/stop`,
      withCookie(cookie, { method: 'POST' }),
    );
    expect(stop.status).toBe(200);
    expect(stop.body.refund_fen).toBeGreaterThan(0);
    await w.settle();
    const profile = await w.json<UserProfile>('/backend/user/profile', withCookie(cookie));
    expect(profile.body.wallets.every((x) => x.principal_fen === 0)).toBe(true);
    const [o] = await w.database.db.select().from(orders).where(eq(orders.order_no, res.body.order.order_no));
    expect(o).toMatchObject({ status: 'refunded', refunded_fen: stop.body.refund_fen });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('refunds a paid WeChat order to WeChat when the device became busy meanwhile', async () => {
    const a = await w.signIn('o-pay-wechat-late');
    const b = await funded('o-pay-wechat-taker');
    const d = ds[2]!;
    const [price] = await pricesOf(d.venue_id);
    const body = { device_id: d.id, venue_id: d.venue_id, price_id: price!.id };
    const res = await pay(a.cookie, { ...body, method: 'wechat' });
    expect(res.status).toBe(201);
    expect((await pay(b.cookie, { ...body, method: 'wallet' })).status).toBe(201);
    await pressConfirmAtCashier(w, res.body.jsapi!.cashier_url!);
    await w.settle();
    const q = await w.json(`/backend/api/query?order_no=${res.body.order.order_no}`);
    expect(q.body).toMatchObject({ status: 'refunded' });
    const profile = await w.json<UserProfile>('/backend/user/profile', withCookie(a.cookie));
    expect(profile.body.wallets.every((x) => x.principal_fen === 0)).toBe(true);
    const [o] = await w.database.db.select().from(orders).where(eq(orders.order_no, res.body.order.order_no));
    expect(o).toMatchObject({ status: 'refunded', refunded_fen: price!.price_fen });
    await assertLedgerInvariants(w.database.db, { settled: true });
  });

  it('answers an unknown order number with 404 and a malformed one with 400', async () => {
    expect((await w.json('/backend/api/query?order_no=C2026000000000000000000000')).status).toBe(404);
    const bad = await w.json<{ code: string }>('/backend/api/query?order_no=%27%3B--');
    expect(bad.status).toBe(400);
    expect((await w.json('/backend/api/query')).status).toBe(400);
  });
});

describe('bad input', () => {
  it('answers any malformed pay request with 4xx and changes nothing', async () => {
    const { cookie } = await funded('o-pay-fuzz');
    await w.settle();
    const before = await snapshot();
    const junk = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.integer({ min: -1_000_000, max: 0 }),
      fc.double({ noInteger: true }),
      fc.string({ maxLength: 300 }).filter((s) => !(Number(s) > 0)),
      fc.constant(2 ** 31),
      fc.constant(Number.MAX_SAFE_INTEGER),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.constant({ $ne: null }),
    );
    const method = fc.oneof(
      fc.constant('wallet'),
      fc.constant('cash'),
      fc.constant(''),
      fc.string({ maxLength: 20 }),
      fc.constant(undefined),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ device_id: junk, venue_id: junk, price_id: junk, method }, { requiredKeys: [] }),
          fc.record({
            device_id: fc.constant(ds[0]!.id),
            venue_id: fc.constant(ds[0]!.venue_id),
            price_id: fc.constant(1),
            method: fc.string({ maxLength: 10 }).filter((m) => m !== 'wallet' && m !== 'wechat'),
          }),
          fc.string({ maxLength: 200 }),
          fc.constant('[]'),
          fc.constant('{"device_id":1'),
        ),
        async (body) => {
          const res = await w.request(
            '/backend/user/pay',
            withCookie(cookie, postJson(typeof body === 'string' ? body : JSON.stringify(body))),
          );
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          const err = (await res.json()) as { code: string; message: string };
          expect(err.code).toMatch(/^[A-Z_]+$/);
          expect(err.message).toMatch(/[\u4e00-\u9fa5]/);
        },
      ),
      { numRuns: 80 },
    );
    const badKey = await pay(
      cookie,
      { device_id: ds[0]!.id, venue_id: ds[0]!.venue_id, price_id: 1, method: 'wallet' },
      { 'Idempotency-Key': 'x'.repeat(101) },
    );
    expect(badKey.status).toBe(400);
    expect(await snapshot()).toEqual(before);
    await assertLedgerInvariants(w.database.db);
  });
});
