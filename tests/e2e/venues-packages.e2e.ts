/**
 * `/merchant/venues` and `/merchant/packages` in Chromium at 390x844 against the real server, then what a phone in
 * WeChat sees. The merchant adds a venue (the empty name refused on the field first), opens a venue and edits its
 * prices: adds one typed in yuan (a bad amount refused on the field), moves it up, deactivates one, deletes one
 * after a confirmation; then adds a package, deactivates one, moves the new one to the top. A member who scans the
 * venue's device sees exactly the active prices in that order, and the active packages in that order.
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

const dialog = (page: Page) => page.locator('dialog[open]');

async function editVenueAndPrices(page: Page) {
  await page.goto(`${app.url}/merchant/venues`);
  const venues = page.getByTestId('venue-row');
  await expect.poll(() => venues.count()).toBe(2);
  await screenshot(page, 'venues-list');

  await page.getByRole('button', { name: '新增' }).click();
  await page.getByRole('button', { name: '保存' }).click();
  await page.getByText('请输入场地名称').waitFor();
  await page.getByLabel('场地名称', { exact: true }).fill('西溪印象城店');
  await page.getByLabel('地址', { exact: true }).fill('杭州市余杭区五常大道 1 号印象城 B1');
  await screenshot(page, 'venues-add');
  await page.getByRole('button', { name: '保存' }).click();
  await page.getByText('场地已添加').waitFor();
  await expect.poll(() => venues.count()).toBe(3);
  await venues.filter({ hasText: '西溪印象城店' }).getByText('用户无法支付').waitFor();

  // The first venue's page (kept in the address: a reload stays on it).
  await venues.filter({ hasText: '星河广场店' }).click();
  await page.waitForURL((u) => u.search === '?venue=1');
  const prices = page.getByTestId('price-row');
  await expect.poll(() => prices.count()).toBe(3);
  await page.reload();
  await expect.poll(() => prices.count()).toBe(3);

  await page.getByRole('button', { name: '添加价格' }).click();
  await page.getByLabel('价格名称', { exact: true }).fill('90 分钟');
  await page.getByLabel('时长（分钟）', { exact: true }).fill('90');
  await page.getByLabel('价格（元）', { exact: true }).fill('4.555');
  await page.getByRole('button', { name: '保存' }).click();
  await page.getByText(/价格格式不对/).waitFor();
  await screenshot(page, 'venue-price-form');
  await page.getByLabel('价格（元）', { exact: true }).fill('4.5');
  await page.getByRole('button', { name: '保存' }).click();
  await page.getByText('价格已保存').waitFor();
  await expect.poll(() => prices.count()).toBe(4);
  await prices.nth(3).getByText('¥4.50').waitFor();

  // The new price comes last: 30, 60, 120, 90 → two places up: 30, 90, 60, 120.
  await prices.nth(3).getByRole('button', { name: '上移' }).click();
  await expect.poll(() => prices.nth(2).innerText()).toContain('90 分钟');
  await prices.nth(2).getByRole('button', { name: '上移' }).click();
  await expect.poll(() => prices.nth(1).innerText()).toContain('90 分钟');
  // Deactivate 60 分钟.
  await prices.filter({ hasText: '60 分钟' }).getByRole('checkbox').click();
  await prices.filter({ hasText: '60 分钟' }).getByText('已停用').waitFor();
  // Delete 120 分钟 after the confirmation.
  await prices.filter({ hasText: '120 分钟' }).getByRole('button', { name: '删除' }).click();
  await dialog(page).getByText('删除价格？').waitFor();
  await screenshot(page, 'venue-price-delete');
  await dialog(page).getByRole('button', { name: '删除' }).click();
  await expect.poll(() => prices.count()).toBe(3);
  await page.getByTestId('venue-card').getByText('2/3 个价格启用').waitFor();
  await page.waitForTimeout(2800); // let the toast go before the page's picture
  await screenshot(page, 'venue-prices');
}

async function editPackages(page: Page) {
  await page.goto(`${app.url}/merchant/packages`);
  const rows = page.getByTestId('package-row');
  await expect.poll(() => rows.count()).toBe(2);
  await page.getByRole('button', { name: '新增' }).click();
  await page.getByLabel('套餐名称', { exact: true }).fill('充 30 送 3');
  await page.getByLabel('充值金额（元）', { exact: true }).fill('30');
  await page.getByLabel('赠送金额（元）', { exact: true }).fill('3');
  await screenshot(page, 'packages-add');
  await page.getByRole('button', { name: '保存' }).click();
  await page.getByText('套餐已保存').waitFor();
  await expect.poll(() => rows.count()).toBe(3);

  // Deactivate 充 50 送 5; move the new one to the top.
  await rows.filter({ hasText: '充 50 送 5' }).getByRole('checkbox').click();
  await rows.filter({ hasText: '充 50 送 5' }).getByText('已停用').waitFor();
  await rows.nth(2).getByRole('button', { name: '上移' }).click();
  await expect.poll(() => rows.nth(1).innerText()).toContain('充 30 送 3');
  await rows.nth(1).getByRole('button', { name: '上移' }).click();
  await expect.poll(() => rows.nth(0).innerText()).toContain('充 30 送 3');

  // Delete asks first; cancelling keeps the package.
  await rows.filter({ hasText: '充 100 送 15' }).getByRole('button', { name: '删除' }).click();
  await dialog(page).getByText('删除套餐？').waitFor();
  await screenshot(page, 'packages-delete');
  await dialog(page).getByRole('button', { name: '取消' }).click();
  await expect.poll(() => rows.count()).toBe(3);
  await page.waitForTimeout(2800);
  await screenshot(page, 'packages-list');
}

describe('venues, prices and packages', () => {
  it('the merchant edits venues, prices and packages; a phone in WeChat sees exactly the active ones', async () => {
    const { page, context, console: logs } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'merchant');
      await editVenueAndPrices(page);
      await editPackages(page);
      expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await context.close();
    }

    const phone = await newPhonePage(browser, { userAgent: WECHAT_UA });
    try {
      const payLink = '/user/pay?device_id=1&venue_id=1';
      await openSignedInWeChat(phone.page, app.url, payLink, 'e2e-venues');
      const cards = phone.page.locator('[data-testid^="price-"]');
      await expect.poll(() => cards.count()).toBe(2);
      expect(await cards.allInnerTexts()).toEqual([
        expect.stringMatching(/30 分钟[\s\S]*¥2\.00/),
        expect.stringMatching(/90 分钟[\s\S]*¥4\.50/),
      ]);
      await screenshot(phone.page, 'venues-pay-page');
      await phone.page.getByRole('button', { name: '充值' }).click();
      const offered = phone.page.locator('[data-testid^="package-"]');
      await expect.poll(() => offered.count()).toBe(2);
      expect(await offered.allInnerTexts()).toEqual([
        expect.stringMatching(/充 ¥30\.00[\s\S]*送 ¥3\.00/),
        expect.stringMatching(/充 ¥100\.00[\s\S]*送 ¥15\.00/),
      ]);
      await screenshot(phone.page, 'packages-recharge-sheet');
    } finally {
      await phone.context.close();
    }
  }, 180_000);

  it('a partner has no access', async () => {
    const { page, context } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'partner');
      for (const path of ['/merchant/venues', '/merchant/packages']) {
        await page.goto(`${app.url}${path}`);
        await page.getByText('无权限访问').waitFor();
      }
    } finally {
      await context.close();
    }
  });
});
