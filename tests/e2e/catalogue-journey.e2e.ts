/**
 * The whole catalogue through the screens alone, in Chromium at 390x844 against the real server: the admin adds a
 * merchant with its owner's sign-in; the new owner adds a venue with a service price, three devices as a batch and
 * a recharge package, and opens the label sheet's print view; a phone in WeChat then opens the first device's
 * pay link (read from its label), pays with WeChat Pay through the sandbox cashier and sees the device start.
 * Screenshots of each step go to docs/screenshots/catalogue-*.png.
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
import {
  addDeviceBatch,
  fillMerchantForm,
  openSignedInWeChat,
  payWithWeChatSandbox,
  screenshotPrintView,
  signIn,
} from './steps';

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

const MERCHANT = {
  name: '云栖按摩椅',
  contact: '周云',
  phone: '13700001111',
  feeBasisPoints: 600,
  owner: 'yunqi_owner',
  password: 'yunqi-pass-7',
};

async function addMerchant(page: Page) {
  await loginAs(page, app.url, 'admin');
  await page.goto(`${app.url}/admin/merchants/add`);
  await fillMerchantForm(page, MERCHANT);
  await screenshot(page, 'catalogue-01-merchant-add');
  await page.getByRole('button', { name: '创建商户' }).click();
  await page.waitForURL(`${app.url}/admin/merchants`);
  await page.getByTestId('merchant-row').filter({ hasText: MERCHANT.name }).waitFor();
  await screenshot(page, 'catalogue-02-merchants');
}

async function addVenueAndPrice(page: Page) {
  await page.goto(`${app.url}/merchant/venues`);
  await page.getByRole('button', { name: '新增' }).click();
  await page.getByLabel('场地名称', { exact: true }).fill('云栖小镇店');
  await page.getByLabel('地址', { exact: true }).fill('杭州市西湖区云栖小镇 8 号');
  await page.getByRole('button', { name: '保存' }).click();
  await page.getByText('场地已添加').waitFor();
  const venue = page.getByTestId('venue-row').filter({ hasText: '云栖小镇店' });
  await venue.waitFor();
  await venue.click();
  await page.waitForURL((u) => u.searchParams.has('venue'));
  await page.getByRole('button', { name: '添加价格' }).click();
  await page.getByLabel('价格名称', { exact: true }).fill('15 分钟');
  await page.getByLabel('时长（分钟）', { exact: true }).fill('15');
  await page.getByLabel('价格（元）', { exact: true }).fill('3');
  await screenshot(page, 'catalogue-03-price');
  await page.getByRole('button', { name: '保存' }).click();
  await page.getByText('价格已保存').waitFor();
  await page.getByTestId('price-row').filter({ hasText: '¥3.00' }).waitFor();
  await page.waitForTimeout(2800); // let the toast go before the page's picture
  await screenshot(page, 'catalogue-04-venue');
}

/** Adds three devices as a batch and prints their labels; returns the first label's pay link. */
async function addDevicesAndPrint(page: Page): Promise<string> {
  await page.goto(`${app.url}/merchant/devices`);
  await addDeviceBatch(page, { prefix: '云栖椅 ', count: 3, shot: 'catalogue-05-devices-batch' });
  const rows = page.getByTestId('device-row');
  await expect.poll(() => rows.count()).toBe(3);
  await screenshot(page, 'catalogue-06-devices');
  await page.getByRole('button', { name: '打印所选标签（3）' }).click();
  const labels = page.getByTestId('label-sheet').getByTestId('device-label');
  await expect.poll(() => labels.locator('svg').count()).toBe(3);
  await screenshotPrintView(page, 'catalogue-07-labels-print');
  const payUrl = await labels.first().getAttribute('data-pay-url');
  expect(payUrl).toMatch(/\/user\/pay\?device_id=\d+&venue_id=\d+$/);
  return payUrl!;
}

async function addPackage(page: Page) {
  await page.goto(`${app.url}/merchant/packages`);
  await page.getByRole('button', { name: '新增' }).click();
  await page.getByLabel('套餐名称', { exact: true }).fill('充 20 送 2');
  await page.getByLabel('充值金额（元）', { exact: true }).fill('20');
  await page.getByLabel('赠送金额（元）', { exact: true }).fill('2');
  await page.getByRole('button', { name: '保存' }).click();
  await page.getByText('套餐已保存').waitFor();
  await page.getByTestId('package-row').filter({ hasText: '充 20 送 2' }).waitFor();
  await page.waitForTimeout(2800);
  await screenshot(page, 'catalogue-08-package');
}

describe('the catalogue, from a new merchant to a paid device', () => {
  it('admin adds a merchant; its owner adds venue, price, devices, package, prints labels; a phone pays', async () => {
    const admin = await newPhonePage(browser);
    const owner = await newPhonePage(browser);
    const phone = await newPhonePage(browser, { userAgent: WECHAT_UA });
    const pages = [admin, owner, phone];
    try {
      await addMerchant(admin.page);

      await signIn(owner.page, app.url, MERCHANT.owner, MERCHANT.password);
      await owner.page.waitForURL(`${app.url}/dashboard`);
      await addVenueAndPrice(owner.page);
      const payUrl = await addDevicesAndPrint(owner.page);
      await addPackage(owner.page);

      const link = new URL(payUrl);
      await openSignedInWeChat(phone.page, app.url, link.pathname + link.search, 'e2e-catalogue');
      // A new device is online once it first reports (the simulator's heartbeat, every 30 s, as a real device
      // does once powered): until then the page says 设备离线 and offers no payment, so look again until it runs.
      await expect
        .poll(
          async () => {
            await phone.page.reload();
            await phone.page.getByTestId('device-name').waitFor();
            return phone.page.getByText('设备离线，暂时无法使用').count();
          },
          { timeout: 45_000, interval: 3000 },
        )
        .toBe(0);
      const price = phone.page.locator('[data-testid^="price-"]');
      await expect.poll(() => price.count()).toBe(1);
      expect(await price.innerText()).toMatch(/15 分钟[\s\S]*¥3\.00/);
      await price.click();
      await screenshot(phone.page, 'catalogue-09-pay-page');
      await payWithWeChatSandbox(phone.page, { cashierShot: 'catalogue-10-cashier' });
      await phone.page.getByText('¥3.00').first().waitFor();
      await screenshot(phone.page, 'catalogue-11-using');
      for (const p of pages) expect(p.console.filter((l) => l.type === 'pageerror')).toEqual([]);
    } catch (err) {
      for (const [i, p] of pages.entries())
        await p.page.screenshot({ path: `/tmp/catalogue-failure-${i}.png` }).catch(() => {});
      throw err;
    } finally {
      for (const p of pages) await p.context.close();
    }
  }, 240_000);
});
