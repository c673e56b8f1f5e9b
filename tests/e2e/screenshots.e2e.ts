/**
 * Screenshots for the README at 390x844 (docs/screenshots/shell-*.png): the sign-in page, the merchant's
 * dashboard, and the partner's wallet with the two-tab bar. Each is taken after the page's data has arrived.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { launchBrowser, loginAs, newPhonePage, screenshot, startApp, type RunningApp } from './harness';

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

describe('shell screenshots', () => {
  it('sign-in page', async () => {
    const { page, context } = await newPhonePage(browser);
    await page.goto(`${app.url}/admin-login`);
    await page.getByRole('heading', { name: '管理员登录' }).waitFor();
    const file = await screenshot(page, 'shell-sign-in');
    expect(fs.statSync(file).size).toBeGreaterThan(10_000);
    await context.close();
  });

  it('dashboard (merchant)', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'merchant');
    await page.getByTestId('today-amount').waitFor();
    await page.getByRole('region', { name: '商户运营' }).waitFor();
    const file = await screenshot(page, 'shell-dashboard');
    expect(fs.statSync(file).size).toBeGreaterThan(10_000);
    await context.close();
  });

  it('tab bar (partner on the wallet)', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'partner');
    await page.getByRole('navigation', { name: '底部导航' }).waitFor();
    await page.getByRole('heading', { name: '钱包' }).waitFor();
    await page
      .getByTestId('empty-state')
      .or(page.locator('[data-screen="wallet"] section'))
      .first()
      .waitFor();
    const file = await screenshot(page, 'shell-tab-bar');
    expect(fs.statSync(file).size).toBeGreaterThan(10_000);
    await context.close();
  });
});
