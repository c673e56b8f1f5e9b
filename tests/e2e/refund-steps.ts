/** Steps of the WeChat refund browser tests: a WeChat pay at the sandbox cashier with a chosen refund outcome. */
import { desc, eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { AppDeps } from '../../server/context';
import { orders, sandbox_pay_transactions, wechat_refunds } from '../../server/db/schema';
import type { RunningApp } from './harness';

const depsOf = (app: RunningApp) => app.server.deps as AppDeps;

/** Waits until the order's latest WeChat refund is in `status`. */
export async function refundReaches(app: RunningApp, orderNo: string, status: string) {
  const { db } = depsOf(app);
  await expect
    .poll(
      async () => {
        const [row] = await db
          .select({ status: wechat_refunds.status })
          .from(wechat_refunds)
          .innerJoin(orders, eq(orders.id, wechat_refunds.order_id))
          .where(eq(orders.order_no, orderNo))
          .orderBy(desc(wechat_refunds.id));
        return row?.status;
      },
      { timeout: 30_000, interval: 250 },
    )
    .toBe(status);
}

/** Makes the device refuse its next start (the sandbox devices' switch), so the payment is refunded in full. */
export async function deviceRefuses(app: RunningApp, deviceId: number) {
  const res = await fetch(`${app.url}/backend/sandbox/devices/${deviceId}/mode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'refuse' }),
  });
  expect(res.status).toBe(200);
}

/**
 * 微信支付 → 确认付款 → the sandbox cashier; the sandbox ends this payment's refunds with `outcome` (`closed`,
 * `abnormal`, …); 确认支付. Returns the order number.
 */
export async function payWithRefundOutcome(app: RunningApp, page: Page, outcome: string): Promise<string> {
  await page.getByRole('button', { name: '微信支付' }).click();
  await page.getByRole('button', { name: '确认付款' }).click();
  await page.getByRole('button', { name: '确认支付' }).waitFor();
  const [tx] = await depsOf(app)
    .db.select()
    .from(sandbox_pay_transactions)
    .orderBy(desc(sandbox_pay_transactions.id))
    .limit(1);
  await depsOf(app).wechat!.sandbox!.setRefundOutcome(tx!.out_trade_no, outcome);
  await page.getByRole('button', { name: '确认支付' }).click();
  return tx!.out_trade_no;
}
