/**
 * 首页's today figures: money in (recharges) and revenue (consumption net of refunds) are two figures, never summed
 * (a 50 yuan recharge spent on a 2 yuan use and partly refunded is not 50.01 of anything); the merchant sees its
 * own, the admin all merchants (a second merchant's recharges added), an employee only the orders they took (their
 * own cash, not a colleague's at another merchant).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayResponse, StopResponse } from '../../../src/domain/api';
import type { DashboardSummary } from '../../../src/domain/dashboard';
import { members, orders } from '../../../server/db/schema';
import { fundMember } from '../device-sessions/devices-fixtures';
import { as, memberIdOf, otherMerchant, post, staffLogin } from '../employee/employee-fixtures';
import {
  bearer,
  createTestApp,
  postJson,
  signInMember,
  type TestWorld,
  withCookie,
  WORLD,
} from '../test-app';

let t: TestWorld;
beforeAll(async () => {
  t = await createTestApp(WORLD);
});
afterAll(async () => t?.close());

async function token(username: string) {
  const { body } = await t.json<{ token: string }>(
    '/backend/auth/login',
    postJson({ username, password: 'demo1234' }),
  );
  return body.token;
}
const today = async (username: string) =>
  (await t.json<DashboardSummary>('/backend/dashboard', bearer(await token(username)))).body.today;

describe('首页 today figures', () => {
  it('shows recharges and revenue apart; a refund lowers revenue only', async () => {
    const cookie = await signInMember(t, 'dash-member');
    const [m] = await t.deps.db
      .select({ id: members.id })
      .from(members)
      .where(eq(members.openid, 'dash-member'));
    await fundMember(t.deps.db, m!.id, 1, 5000);
    const pay = await t.json<PayResponse>(
      '/backend/user/pay',
      withCookie(cookie, postJson({ device_id: 1, venue_id: 1, price_id: 1, method: 'wallet' })),
    );
    expect(pay.status).toBe(201);
    const orderNo = pay.body.order.order_no;
    const [o] = await t.deps.db.select().from(orders).where(eq(orders.order_no, orderNo));
    // Wait for the device to acknowledge, then stop at once: most of the price comes back.
    const end = Date.now() + 5000;
    let stop: { status: number; body: StopResponse } | undefined;
    while (Date.now() < end) {
      stop = await t.json<StopResponse>(
        `/backend/user/using/${orderNo}/stop`,
        withCookie(cookie, { method: 'POST' }),
      );
      if (stop.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stop?.status).toBe(200);
    const refund = stop!.body.refund_fen;
    expect(refund).toBeGreaterThan(0);

    const merchant = await today('merchant');
    expect(merchant.recharge_fen).toBe(5000);
    expect(merchant.recharges).toBe(1);
    expect(merchant.revenue_fen).toBe(o!.amount_fen - refund);
    expect(merchant.amount_fen).toBe(merchant.revenue_fen);
    expect(merchant.orders).toBe(1);
    const admin = await today('admin');
    expect(admin.recharge_fen).toBe(5000);
    expect(admin.revenue_fen).toBe(o!.amount_fen - refund);
    // The employee took none of these orders.
    const employee = await today('employee');
    expect(employee).toMatchObject({ recharge_fen: 0, revenue_fen: 0, orders: 0, recharges: 0 });
  });

  it('the admin adds every merchant up; an employee sees only the cash they took', async () => {
    const before = {
      admin: await today('admin'),
      merchant: await today('merchant'),
      employee: await today('employee'),
    };
    const other = await otherMerchant(t);
    await signInMember(t, 'dash-member-2');
    const member = await memberIdOf(t, 'dash-member-2');
    // Merchant 2: a WeChat recharge of 30 yuan and 5 yuan cash taken by its employee.
    await fundMember(t.deps.db, member.id, other.merchant_id, 3000);
    const cash = (username: string, amount_fen: number, key: string) =>
      staffLogin(t, username).then(
        (tok) =>
        t.json('/backend/employee/cash-recharge', as(tok, post({ member_code: member.code, amount_fen, note: '前台收现' }, key))), // prettier-ignore
      );
    expect((await cash('employee2', 500, 'dash-2')).status).toBe(201);
    // Merchant 1: 20 yuan cash taken by the demo employee.
    expect((await cash('employee', 2000, 'dash-1')).status).toBe(201);

    const admin = await today('admin');
    expect(admin.recharge_fen - before.admin.recharge_fen).toBe(3000 + 500 + 2000);
    expect(admin.recharges - before.admin.recharges).toBe(3);
    expect(admin.revenue_fen).toBe(before.admin.revenue_fen);
    const merchant = await today('merchant');
    expect(merchant.recharge_fen - before.merchant.recharge_fen).toBe(2000);
    expect(merchant.recharges - before.merchant.recharges).toBe(1);
    const employee = await today('employee');
    expect(employee).toMatchObject({
      recharge_fen: before.employee.recharge_fen + 2000,
      recharges: before.employee.recharges + 1,
      revenue_fen: 0,
    });
    expect(await today('employee2')).toMatchObject({
      recharge_fen: 500,
      recharges: 1,
      revenue_fen: 0,
      orders: 0,
    });
  });
});
