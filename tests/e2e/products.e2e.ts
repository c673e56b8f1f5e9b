/**
 * `/admin/products` in Chromium at 390x844 against the real server: the admin sees the demo models, adds one
 * (the empty name is refused on the field first), edits it and is asked before leaving with unsaved changes,
 * cannot delete a model in use (the server's message is shown), retires the new one; a merchant has no access.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('device models', () => {
  it('the admin adds, edits, retires and is refused deleting a model in use', async () => {
    const { page, context, console: logs } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'admin');
      await page.goto(`${app.url}/admin/products`);
      const rows = page.getByTestId('product-row');
      await expect.poll(() => rows.count()).toBe(2);
      await screenshot(page, 'products-list');

      await page.getByRole('button', { name: '新增' }).click();
      await page.getByRole('button', { name: '保存' }).click();
      await page.getByText('请输入型号名称').first().waitFor();
      await page.getByLabel('型号名称', { exact: true }).fill('滚筒洗衣机 X1');
      await page.getByLabel('类别', { exact: true }).selectOption('washer');
      await page.getByLabel('说明', { exact: true }).fill('10 公斤，投币与扫码两用');
      await screenshot(page, 'products-add');
      await page.getByRole('button', { name: '保存' }).click();
      await page.getByText('已保存').waitFor();
      await expect.poll(() => rows.count()).toBe(3);
      await page.getByText('洗衣机 · 0 台设备').waitFor();

      // Edit, then leave with unsaved changes: asked first.
      await page.getByRole('button', { name: /滚筒洗衣机 X1/ }).click();
      await page.getByLabel('说明', { exact: true }).fill('12 公斤');
      await page.getByRole('button', { name: '取消' }).first().click();
      await page.getByText('放弃未保存的修改？').waitFor();
      await page.getByRole('button', { name: '放弃修改' }).click();
      await expect.poll(() => page.getByText('放弃未保存的修改？').count()).toBe(0);

      // A model in use cannot be deleted: the server's message.
      const charger = rows.filter({ hasText: '4 台设备' });
      await charger.getByRole('button', { name: '删除' }).click();
      await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
      await page.getByText(/台设备在用，不能删除/).waitFor();
      await screenshot(page, 'products-in-use');

      // Retire the new one.
      await rows.filter({ hasText: '滚筒洗衣机 X1' }).getByRole('button', { name: '停用' }).click();
      await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
      await rows.filter({ hasText: '已停用' }).first().waitFor();
      expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a merchant has no access', async () => {
    const { page, context } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'merchant');
      await page.goto(`${app.url}/admin/products`);
      await page.getByText('无权限访问').waitFor();
      expect(await page.getByTestId('product-row').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
