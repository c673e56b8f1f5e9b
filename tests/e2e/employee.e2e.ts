/**
 * The employee's floor in Chromium at 390x844 against the real server and device simulator: the member (WeChat
 * user agent, signed in through the sandbox) shows the member code on /user/profile; the employee (a plain phone)
 * types it, takes 50 yuan cash for the package 充 50 送 5, and the member's balance shows ¥55.00; the employee
 * starts a device for cash, sees it counting down on the live board, and stops it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WECHAT_UA,
  launchBrowser,
  loginAs,
  newPhonePage,
  screenshot,
  startApp,
  type RunningApp,
} from './harness';

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

describe('employee floor', () => {
  it('member code → cash recharge → remote start → live board → stop', async () => {
    const member = await newPhonePage(browser, { userAgent: WECHAT_UA });
    const staff = await newPhonePage(browser);
    try {
      // The member opens 我的 and shows the code.
      await member.page.goto(
        `${app.url}/backend/wechat/authorize?redirect=${encodeURIComponent('/user/profile')}&sandbox_openid=e2e-cash-member`,
      );
      await member.page.waitForURL((u) => u.pathname === '/user/profile');
      const digits = member.page.getByTestId('member-code-digits');
      await digits.waitFor();
      await member.page.getByRole('img', { name: /会员码/ }).waitFor();
      const code = (await digits.innerText()).replace(/\s/g, '');
      expect(code).toMatch(/^\d{8}$/);
      await screenshot(member.page, 'employee-member-code');

      // The employee types it and takes 50 yuan for the package.
      const { page } = staff;
      await loginAs(page, app.url, 'employee');
      await page.goto(`${app.url}/employee/cash-recharge`);
      await page.getByLabel('会员码').fill(code);
      await page.getByRole('button', { name: '查询会员' }).click();
      await page.getByTestId('cash-member').waitFor();
      await page.getByRole('button', { name: /充 50 送 5/ }).click();
      await page.getByLabel('备注').fill('前台收现 e2e');
      await page.getByRole('button', { name: '确认充值' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText(/收取现金 ¥50\.00，赠送 ¥5\.00，到账 ¥55\.00/).waitFor();
      await screenshot(page, 'employee-cash-confirm');
      await dialog.getByRole('button', { name: '已收现金，确认充值' }).click();
      const result = page.getByTestId('cash-result');
      await result.getByText('充值成功').waitFor();
      await result.getByText('¥55.00').waitFor();
      await page.getByTestId('cash-today').getByText('前台收现 e2e').waitFor();
      await screenshot(page, 'employee-cash-result');

      // The member's balance shows 50 plus the bonus.
      await member.page.reload();
      await member.page.getByTestId('wallet-1').getByText('¥55.00').waitFor();
      await screenshot(member.page, 'employee-member-balance');

      // Remote start for cash.
      await page.goto(`${app.url}/employee/remote-start`);
      await page.getByRole('button', { name: /广场 1 号充电桩/ }).click();
      await page.getByRole('button', { name: /30 分钟/ }).click();
      await page.getByRole('button', { name: '启动设备' }).click();
      await page
        .getByRole('dialog')
        .getByText(/已收现金 ¥2\.00/)
        .waitFor();
      await page.getByRole('dialog').getByRole('button', { name: '启动' }).click();
      await page
        .getByTestId('start-result')
        .getByText(/已启动「广场 1 号充电桩」30 分钟/)
        .waitFor();
      await screenshot(page, 'employee-remote-start');

      // The live board counts down.
      await page.goto(`${app.url}/employee/device-charging`);
      const left = page.getByTestId('left-1');
      await left.waitFor();
      const first = await left.innerText();
      expect(first).toMatch(/^(29|30):\d\d$/);
      await expect.poll(() => left.innerText(), { timeout: 5000 }).not.toBe(first);
      await screenshot(page, 'employee-device-board');

      // Stop it: refunded pro rata as cash.
      await page.getByTestId('board-device-1').getByRole('button', { name: '结束' }).click();
      await page.getByRole('dialog').getByRole('button', { name: '结束' }).click();
      await page.getByText(/已结束，退款 ¥1\.\d\d，请将现金退还顾客/).waitFor();
      await expect.poll(() => page.getByTestId('left-1').count()).toBe(0);
      await screenshot(page, 'employee-device-stopped');
      const errors = [...member.console, ...staff.console].filter((l) => l.type === 'pageerror');
      expect(errors).toEqual([]);
    } finally {
      await member.context.close();
      await staff.context.close();
    }
  });
});
