/**
 * WeChat refunds in the browser at 390x844 (docs/money.md "WeChat refunds"): a member pays device 3 by WeChat at the
 * sandbox cashier, the device refuses to start, the refund to WeChat is closed by the sandbox; the member sees
 * 退款关闭 on /user/consumption-history; the merchant sees it on the order in the member's page, retries it
 * (confirmed), and both then see 已退回微信. Screenshots docs/screenshots/refunds-*.png.
 */
import { eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../server/context';
import { members, wechat_refunds } from '../../server/db/schema';
import {
  WECHAT_UA,
  launchBrowser,
  loginAs,
  newPhonePage,
  screenshot,
  startApp,
  type RunningApp,
} from './harness';
import { deviceRefuses, payWithRefundOutcome, refundReaches } from './refund-steps';
import { openSignedInWeChat } from './steps';

let app: RunningApp;
let browser: Browser;

beforeAll(async () => {
  app = await startApp();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const deps = () => app.server.deps as AppDeps;

describe('WeChat refunds', () => {
  it('a closed refund is visible to the member and the merchant, who retries it', async () => {
    await deviceRefuses(app, 3);
    const member = await newPhonePage(browser, { userAgent: WECHAT_UA });
    const staff = await newPhonePage(browser);
    try {
      await openSignedInWeChat(member.page, app.url, '/user/pay?device_id=3&venue_id=1', 'e2e-refund');
      await deps().db.update(members).set({ nickname: '退款会员' }).where(eq(members.openid, 'e2e-refund'));
      await member.page.getByRole('button', { name: '充值' }).waitFor();
      const orderNo = await payWithRefundOutcome(app, member.page, 'closed');
      await refundReaches(app, orderNo, 'closed');

      await member.page.goto(`${app.url}/user/consumption-history`);
      const row = member.page.getByTestId('consumption-row').first();
      await row.getByTestId('refund').getByText('退款关闭').waitFor();
      expect(await row.innerText()).toContain('退回微信');
      await screenshot(member.page, 'refunds-member-closed');

      await loginAs(staff.page, app.url, 'merchant');
      await staff.page.goto(`${app.url}/merchant/members`);
      await staff.page.getByTestId('member-row').filter({ hasText: '退款会员' }).click();
      await staff.page.getByRole('tab', { name: '订单' }).click();
      const refund = staff.page.getByTestId('member-order-refund').first();
      await refund.getByText('退款关闭', { exact: false }).first().waitFor();
      await screenshot(staff.page, 'refunds-staff-closed');

      await deps().wechat!.sandbox!.setRefundOutcome(orderNo, null);
      await refund.getByRole('button', { name: '重新退款' }).click();
      // The confirmation (the member's page is a sheet too: the dialog's primary button).
      await staff.page.locator('button.btn-primary', { hasText: '重新退款' }).click();
      await staff.page.getByText('已重新提交退款').waitFor();
      // WeChat's rule: requests of one order a minute apart. The retry waits (退款中); then a minute passes.
      await staff.page.getByTestId('member-order-refund').first().getByText('退款中').waitFor();
      await deps()
        .db.update(wechat_refunds)
        .set({ last_request_at: new Date(Date.now() - 61_000), next_attempt_at: new Date() })
        .where(eq(wechat_refunds.status, 'pending'));
      await refundReaches(app, orderNo, 'succeeded');
      // Another tab and back: the orders list loads again.
      await staff.page.getByRole('tab', { name: '使用记录' }).click();
      await staff.page.getByRole('tab', { name: '订单' }).click();
      await staff.page.getByTestId('member-order-refund').first().getByText('已退回微信').waitFor();
      await screenshot(staff.page, 'refunds-staff-succeeded');

      await member.page.reload();
      await member.page
        .getByTestId('consumption-row')
        .first()
        .getByTestId('refund')
        .getByText('已退回微信')
        .waitFor();
      await screenshot(member.page, 'refunds-member-succeeded');
      expect(member.console.filter((l) => l.type === 'pageerror')).toEqual([]);
      expect(staff.console.filter((l) => l.type === 'pageerror')).toEqual([]);
    } catch (err) {
      await member.page.screenshot({ path: '/tmp/refunds-member-failure.png' }).catch(() => {});
      await staff.page.screenshot({ path: '/tmp/refunds-staff-failure.png' }).catch(() => {});
      throw err;
    } finally {
      await member.context.close();
      await staff.context.close();
    }
  });
});
