/**
 * Merchants in Chromium at 390x844 against the real server: the admin adds a merchant with its owner's sign-in
 * (a taken username is refused on its field) and the new owner signs in; the admin disables it after a
 * confirmation, the owner's open page is signed out and signing in again is refused with the reason; the admin
 * disables the demo merchant and a phone in WeChat opening one of its devices sees why it cannot pay, instead of the
 * pay buttons; enabled again, the buttons are back.
 */
import type { Browser, Page } from 'playwright-core';
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
import { fillMerchantForm, signIn } from './steps';

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

/** From the list, opens the merchant, sets its status and saves (confirming a disable). */
async function setStatus(page: Page, name: string, status: 'disabled' | 'active', shot?: string) {
  await page.goto(`${app.url}/admin/merchants`);
  await page.getByTestId('merchant-row').filter({ hasText: name }).getByRole('button').first().click();
  await page.waitForURL(/\/admin\/merchants\/\d+$/);
  await expect.poll(() => page.getByLabel('商户名称', { exact: true }).inputValue()).toBe(name);
  await page.getByLabel('状态', { exact: true }).selectOption(status);
  await page.getByRole('button', { name: '保存' }).click();
  if (status === 'disabled') {
    await page.getByText('停用该商户？').waitFor();
    if (shot) await screenshot(page, shot);
    await page.getByRole('dialog').getByRole('button', { name: '停用' }).click();
  }
  await page.waitForURL(`${app.url}/admin/merchants`);
}

describe('merchants', () => {
  it('the admin adds a merchant, its owner signs in; disabled, the owner is signed out and refused', async () => {
    const admin = await newPhonePage(browser);
    const owner = await newPhonePage(browser);
    try {
      const page = admin.page;
      await loginAs(page, app.url, 'admin');
      await page.goto(`${app.url}/admin/merchants`);
      await page.getByTestId('merchant-row').first().waitFor();
      await page.getByRole('button', { name: '新增' }).click();
      await page.waitForURL(`${app.url}/admin/merchants/add`);
      await fillMerchantForm(page, {
        name: '湖畔自助洗衣',
        contact: '李湖',
        phone: '13912345678',
        feeBasisPoints: 500,
        owner: 'merchant',
        password: 'lake-pass-9',
      });
      await page.getByRole('button', { name: '创建商户' }).click();
      await page.getByText('该登录账号已被使用，请换一个').waitFor();
      await page.getByLabel('负责人登录账号', { exact: true }).fill('lake_owner');
      await screenshot(page, 'merchants-add');
      await page.getByRole('button', { name: '创建商户' }).click();
      await page.waitForURL(`${app.url}/admin/merchants`);
      await page.getByTestId('merchant-row').filter({ hasText: '湖畔自助洗衣' }).waitFor();
      await screenshot(page, 'merchants-list');

      // The new owner signs in with the initial password and lands on 首页 (level 2).
      await signIn(owner.page, app.url, 'lake_owner', 'lake-pass-9');
      await owner.page.waitForURL(`${app.url}/dashboard`);

      // Disabled: the owner's next request signs them out, and signing in again says why.
      await setStatus(page, '湖畔自助洗衣', 'disabled', 'merchants-disable-confirm');
      await page.getByTestId('merchant-row').filter({ hasText: '已停用' }).waitFor();
      await owner.page.reload();
      await owner.page.waitForURL(`${app.url}/admin-login`);
      await signIn(owner.page, app.url, 'lake_owner', 'lake-pass-9');
      await owner.page.getByText('商户已停用，请联系平台管理员').waitFor();
      await screenshot(owner.page, 'merchants-sign-in-refused');

      // Enabled again: the owner signs in.
      await setStatus(page, '湖畔自助洗衣', 'active');
      await signIn(owner.page, app.url, 'lake_owner', 'lake-pass-9');
      await owner.page.waitForURL(`${app.url}/dashboard`);
      expect(admin.console.filter((l) => l.type === 'pageerror')).toEqual([]);
      expect(owner.console.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await admin.context.close();
      await owner.context.close();
    }
  });

  it('a disabled merchant: its pay page says so instead of offering the pay buttons', async () => {
    const admin = await newPhonePage(browser);
    const phone = await newPhonePage(browser, { userAgent: WECHAT_UA });
    const payLink = `${app.url}/user/pay?device_id=1&venue_id=1`;
    try {
      await loginAs(admin.page, app.url, 'admin');
      await setStatus(admin.page, '星河共享自助', 'disabled');
      await phone.page.goto(payLink);
      await phone.page.getByTestId('merchant-closed').waitFor();
      expect(await phone.page.getByRole('button', { name: '微信支付' }).count()).toBe(0);
      expect(await phone.page.getByRole('button', { name: /余额支付/ }).count()).toBe(0);
      await screenshot(phone.page, 'merchants-pay-closed');

      await setStatus(admin.page, '星河共享自助', 'active');
      await phone.page.goto(payLink);
      await phone.page.getByRole('button', { name: '微信支付' }).waitFor();
      expect(await phone.page.getByTestId('merchant-closed').count()).toBe(0);
      expect(phone.console.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await admin.context.close();
      await phone.context.close();
    }
  });
});
