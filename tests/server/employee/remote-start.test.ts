/**
 * Remote start, the live board and stop over the real app, database and device simulator: a cash start is a cash
 * consumption against the employee once the device acknowledges; a service start is free, needs a reason and is
 * audited; a device that refuses or never acknowledges leaves no charge (the cash goes back to the till) and says
 * so; busy or offline devices 409, another merchant's 404; idempotent per key (20 racing requests: one start); the
 * board shows the running session counting down; stop refunds pro rata to the till (cash) or the member's wallet.
 */
import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceBoard, StaffSession } from '../../../src/domain/device-control.schema';
import type { PayResponse } from '../../../src/domain/api';
import { audit_log, orders, wallets } from '../../../server/db/schema';
import { isControllable } from '../../../server/services/devices/gateway';
import { fundMember } from '../device-sessions/devices-fixtures';
import { assertLedgerInvariants } from '../money/invariants';
import { createTestApp, postJson, signInMember, type TestWorld, withCookie, WORLD } from '../test-app';
import { as, beat, memberIdOf, moneySnapshot, otherMerchant, post, staffLogin } from './employee-fixtures';

type Err = { code: string; message: string; details?: { session?: StaffSession } };
let t: TestWorld;
let employee: string;
let merchant: string;
let partner: string;
let other: Awaited<ReturnType<typeof otherMerchant>>;
let keyN = 0;

const start = (deviceId: number, body: unknown, token = employee, key = `start-${++keyN}`) =>
  t.json<StaffSession & Err>(`/backend/merchant/devices/${deviceId}/start`, as(token, post(body, key)));
const stop = (deviceId: number, token = employee) =>
  t.json<StaffSession & Err>(`/backend/merchant/devices/${deviceId}/stop`, as(token, { method: 'POST' }));
const board = (token = employee, q = '') =>
  t.json<DeviceBoard & Err>(`/backend/employee/devices${q}`, as(token));
const gateway = () => {
  const g = t.deps.devices!.gateway;
  if (!isControllable(g)) throw new Error('simulator expected');
  return g;
};
async function cashTill() {
  const [w] = await t.deps.db
    .select()
    .from(wallets)
    .where(and(eq(wallets.kind, 'external'), eq(wallets.code, 'cash')));
  return w?.principal_fen ?? 0;
}

beforeAll(async () => {
  t = await createTestApp(WORLD);
  other = await otherMerchant(t);
  employee = await staffLogin(t, 'employee');
  merchant = await staffLogin(t, 'merchant');
  partner = await staffLogin(t, 'partner');
  await beat(t);
});
afterAll(async () => t?.close());

describe('remote start', () => {
  it('cash: answers once the device acknowledged; a cash consumption against the employee', async () => {
    const till = await cashTill();
    const res = await start(1, { price_id: 1, mode: 'cash' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'consume',
      method: 'cash',
      status: 'running',
      order_status: 'started',
      amount_fen: 200,
      minutes: 30,
      device_id: 1,
    });
    const [o] = await t.deps.db.select().from(orders).where(eq(orders.order_no, res.body.order_no));
    expect(o!.operator_account_id).not.toBeNull();
    expect(o!.member_id).toBeNull();
    expect(await cashTill()).toBe(till - 200);
    await assertLedgerInvariants(t.deps.db);
  });

  it('the board shows it running with the minutes left; a busy device is 409', async () => {
    const b = await board();
    expect(b.status).toBe(200);
    expect(b.body.items).toHaveLength(6);
    expect(b.body.venues.map((v) => v.id)).toEqual([1, 2]);
    const d1 = b.body.items.find((d) => d.id === 1)!;
    expect(d1).toMatchObject({ status: 'running', online: true, venue_id: 1 });
    expect(d1.session).toMatchObject({ status: 'running', minutes_left: 30, method: 'cash' });
    expect(Date.parse(d1.session!.ends_at!) - Date.parse(b.body.now)).toBeLessThanOrEqual(30 * 60_000);
    expect(b.body.items.find((d) => d.id === 2)!.session).toBeUndefined();
    const venue2 = await board(employee, '?venue_id=2');
    expect(venue2.body.items.map((d) => d.id)).toEqual([4, 5, 6]);
    const busy = await start(1, { price_id: 1, mode: 'cash' });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('DEVICE_BUSY');
    expect(busy.body.message).toMatch(/正在使用中/);
  });

  it('service: a reason is required; free, audited, not revenue', async () => {
    const noReason = await start(2, { price_id: 1, mode: 'service' });
    expect(noReason.status).toBe(400);
    expect(noReason.body.details).toHaveProperty('reason');
    const till = await cashTill();
    const res = await start(2, { price_id: 2, mode: 'service', reason: '顾客投诉补偿' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'service', method: 'free', amount_fen: 0, status: 'running' });
    expect(await cashTill()).toBe(till);
    const [audit] = await t.deps.db
      .select()
      .from(audit_log)
      .where(eq(audit_log.action, 'devices.remote_start_service'));
    expect(audit?.details).toMatchObject({ reason: '顾客投诉补偿', mode: 'service' });
    // Stopping a free start returns nothing.
    const stopped = await stop(2);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ status: 'stopped', refund_fen: 0, refund_to: 'none' });
    await assertLedgerInvariants(t.deps.db);
  });

  it('no acknowledgement: no charge, a clear message, the cash back in the till', async () => {
    await gateway().setMode('XH-CP-0003', 'silent');
    const till = await cashTill();
    const pending = start(4, { price_id: 4, mode: 'cash' });
    await new Promise((r) => setTimeout(r, 300));
    t.advance(11_000);
    const res = await pending;
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('DEVICE_NO_ACK');
    expect(res.body.message).toMatch(/设备未响应，未收费.*¥2\.00/);
    expect(res.body.details?.session).toMatchObject({ status: 'failed', refunded_fen: 200 });
    expect(await cashTill()).toBe(till);
    await gateway().setMode('XH-CP-0003', 'normal');
    await beat(t);
    await assertLedgerInvariants(t.deps.db, { settled: true });
  });

  it('a refusing device: 409, no charge; an offline device: 409 before anything is written', async () => {
    await gateway().setMode('XH-CP-0004', 'refuse');
    const till = await cashTill();
    const refused = await start(5, { price_id: 4, mode: 'cash' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('DEVICE_REFUSED');
    expect(await cashTill()).toBe(till);
    await gateway().setMode('XH-CP-0004', 'offline');
    await t.deps.devices!.settle();
    const before = await moneySnapshot(t);
    const offline = await start(5, { price_id: 4, mode: 'cash' });
    expect(offline.status).toBe(409);
    expect(offline.body.code).toBe('DEVICE_OFFLINE');
    expect(offline.body.message).toMatch(/离线/);
    expect(await moneySnapshot(t)).toEqual(before);
    await gateway().setMode('XH-CP-0004', 'normal');
    await beat(t);
  });

  it('scoping and levels: another merchant’s device 404, a price of another venue 400, partner 403', async () => {
    const before = await moneySnapshot(t);
    expect((await start(other.device_id, { price_id: other.price_id, mode: 'cash' })).status).toBe(404);
    expect((await stop(other.device_id)).status).toBe(404);
    expect((await start(999_999, { price_id: 1, mode: 'cash' })).status).toBe(404);
    const wrongVenue = await start(6, { price_id: 1, mode: 'cash' });
    expect(wrongVenue.status).toBe(400);
    expect(wrongVenue.body.code).toBe('PRICE_NOT_FOUND');
    expect((await start(6, { price_id: 4, mode: 'cash' }, partner)).status).toBe(403);
    expect((await board(partner)).status).toBe(403);
    expect((await board(employee, `?venue_id=${other.venue_id}`)).status).toBe(404);
    const noKey = await t.json<Err>(
      '/backend/merchant/devices/6/start',
      as(employee, postJson({ price_id: 4, mode: 'cash' })),
    );
    expect(noKey.status).toBe(400);
    const bad = fc.oneof(
      fc.record({ price_id: fc.constantFrom(0, -1, 1.5, '4', null), mode: fc.constant('cash') }),
      fc.record({ price_id: fc.constant(4), mode: fc.oneof(fc.string(), fc.constant(null)) }),
      fc.record({
        price_id: fc.constant(4),
        mode: fc.constant('service'),
        reason: fc.constantFrom('', '  ', 'x'.repeat(201), 7),
      }),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (body) => {
        expect((await start(6, body)).status).toBe(400);
      }),
      { numRuns: 30 },
    );
    expect(await moneySnapshot(t)).toEqual(before);
    // The merchant (merchant.devices) may see the board.
    expect((await board(merchant)).status).toBe(200);
  });

  it('20 racing requests with one key start once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => start(6, { price_id: 4, mode: 'cash' }, employee, 'race-start')),
    );
    expect(answers.map((a) => a.status).every((s) => s === 201)).toBe(true);
    expect(new Set(answers.map((a) => a.body.order_no)).size).toBe(1);
    const [n] = await t.deps.db
      .select({ n: count() })
      .from(orders)
      .where(eq(orders.idempotency_key, 'race-start'));
    expect(n!.n).toBe(1);
    await assertLedgerInvariants(t.deps.db);
  });
});

describe('stop', () => {
  it('a cash session: the unused time back to the till as refunded cash', async () => {
    t.advance(10 * 60_000);
    await beat(t);
    const till = await cashTill();
    const res = await stop(1);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'stopped', refund_to: 'cash', order_status: 'refunded' });
    // About 20 of 30 minutes unused (the clock moved 10 min 11 s, plus the tests' own time): 200 * unused / 30 min.
    expect(res.body.refund_fen).toBeGreaterThanOrEqual(125);
    expect(res.body.refund_fen).toBeLessThanOrEqual(133);
    expect(await cashTill()).toBe(till + res.body.refund_fen);
    const again = await stop(1);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('NO_ACTIVE_SESSION');
    const b = await board();
    expect(b.body.items.find((d) => d.id === 1)).toMatchObject({ status: 'idle' });
    await assertLedgerInvariants(t.deps.db);
  });

  it('a member’s wallet session: the unused time back to the wallet', async () => {
    const cookie = await signInMember(t, 'stop-member');
    const m = await memberIdOf(t, 'stop-member');
    await fundMember(t.deps.db, m.id, 1, 1000);
    const paid = await t.json<PayResponse>(
      '/backend/user/pay',
      withCookie(cookie, postJson({ device_id: 3, venue_id: 1, price_id: 3, method: 'wallet' })),
    );
    expect(paid.status).toBe(201);
    const end = Date.now() + 5000;
    while (Date.now() < end) {
      const d3 = (await board()).body.items.find((d) => d.id === 3);
      if (d3?.session?.status === 'running') break;
      await new Promise((r) => setTimeout(r, 30));
    }
    const res = await stop(3);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ refund_to: 'wallet', method: 'wallet' });
    expect(res.body.refund_fen).toBeGreaterThan(590);
    const [w] = await t.deps.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.member_id, m.id), eq(wallets.merchant_id, 1)));
    expect(w!.principal_fen + w!.bonus_fen).toBe(1000 - 600 + res.body.refund_fen);
    await assertLedgerInvariants(t.deps.db, { settled: true });
  });
});
