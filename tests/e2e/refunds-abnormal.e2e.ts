/**
 * An abnormal WeChat refund in the browser at 390x844 (docs/money.md "WeChat refunds", docs/decisions.md D22): a
 * member pays device 2 by WeChat at the sandbox cashier, the device refuses to start, WeChat cannot pay the refund
 * out (the sandbox ends it ABNORMAL); the merchant sees 退款异常 on the order in the member's page, opens
 * 处理异常退款, is stopped by the shared schema on a bad card number, confirms in words and sends it to the member's
 * debit card; the sandbox (WeChat) decrypts the card and pays it, and staff see 已退回银行卡.
 * Screenshots docs/screenshots/refunds-abnormal-*.png.
 */
import { desc, eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../server/context';
import { members, sandbox_pay_refunds, wechat_refunds } from '../../server/db/schema';
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

describe('an abnormal WeChat refund', () => {
  it('is shown to the merchant, who sends it to the member’s debit card', async () => {
    await deviceRefuses(app, 2);
    const member = await newPhonePage(browser, { userAgent: WECHAT_UA });
    const staff = await newPhonePage(browser);
    try {
      await openSignedInWeChat(member.page, app.url, '/user/pay?device_id=2&venue_id=1', 'e2e-abnormal');
      await deps()
        .db.update(members)
        .set({ nickname: '异常退款会员' })
        .where(eq(members.openid, 'e2e-abnormal'));
      await member.page.getByRole('button', { name: '充值' }).waitFor();
      const orderNo = await payWithRefundOutcome(app, member.page, 'abnormal');
      await refundReaches(app, orderNo, 'abnormal');

      await loginAs(staff.page, app.url, 'merchant');
      await staff.page.goto(`${app.url}/merchant/members`);
      await staff.page.getByTestId('member-row').filter({ hasText: '异常退款会员' }).click();
      await staff.page.getByRole('tab', { name: '订单' }).click();
      const refund = staff.page.getByTestId('member-order-refund').first();
      await refund.getByText('退款异常').waitFor();
      await screenshot(staff.page, 'refunds-abnormal-staff');

      await refund.getByRole('button', { name: '处理异常退款' }).click();
      const sheet = staff.page.getByRole('dialog', { name: '处理异常退款' });
      await sheet.getByLabel('开户银行（借记卡）').selectOption('CMB_DEBIT');
      await sheet.getByLabel('银行卡号').fill('6225 88');
      await sheet.getByLabel('收款人姓名').fill('王小明');
      await sheet.getByRole('button', { name: '下一步' }).click();
      await sheet.getByText('请输入正确的银行卡号（10-30 位数字）').waitFor();
      await screenshot(staff.page, 'refunds-abnormal-sheet');
      await sheet.getByLabel('银行卡号').fill('6225 8801 2345 1234');
      await sheet.getByRole('button', { name: '下一步' }).click();
      const summary = sheet.getByTestId('abnormal-summary');
      expect(await summary.innerText()).toContain('王小明 的招商银行借记卡（尾号 1234）');
      await screenshot(staff.page, 'refunds-abnormal-confirm');
      await sheet.getByRole('button', { name: '确认提交' }).click();
      await staff.page.getByText('已提交异常退款，微信处理后更新状态').waitFor();
      // Stored for WeChat only: the number is encrypted with its platform key.
      const [row] = await deps().db.select().from(wechat_refunds).orderBy(desc(wechat_refunds.id)).limit(1);
      expect(row!.abnormal_type).toBe('USER_BANK_CARD');
      expect(row!.abnormal_bank_account).not.toContain('1234');

      // WeChat takes the redirection up; its outcome is asked for after a wait, moved to now here.
      await refundReaches(app, orderNo, 'processing');
      await deps()
        .db.update(wechat_refunds)
        .set({ next_attempt_at: new Date() })
        .where(eq(wechat_refunds.id, row!.id));
      await refundReaches(app, orderNo, 'succeeded');
      const [paidOut] = await deps()
        .db.select()
        .from(sandbox_pay_refunds)
        .where(eq(sandbox_pay_refunds.out_trade_no, orderNo));
      expect(paidOut).toMatchObject({ status: 'SUCCESS', received_account: '招商银行借记卡1234' });

      await staff.page.getByRole('tab', { name: '使用记录' }).click();
      await staff.page.getByRole('tab', { name: '订单' }).click();
      await staff.page.getByTestId('member-order-refund').first().getByText('已退回银行卡').waitFor();
      await screenshot(staff.page, 'refunds-abnormal-succeeded');
      expect(member.console.filter((l) => l.type === 'pageerror')).toEqual([]);
      expect(staff.console.filter((l) => l.type === 'pageerror')).toEqual([]);
    } catch (err) {
      await staff.page.screenshot({ path: '/tmp/refunds-abnormal-failure.png' }).catch(() => {});
      throw err;
    } finally {
      await member.context.close();
      await staff.context.close();
    }
  });
});
