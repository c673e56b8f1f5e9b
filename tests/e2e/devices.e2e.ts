/**
 * `/merchant/devices` in Chromium at 390x844 against the real server: the merchant adds a batch of three devices,
 * opens their label sheet and its print view (print media), whose first QR code, rasterised by the browser, decodes
 * to that device's pay link; moves a device (the label warning, then the new code) and opens the old label's link,
 * which says the device moved.
 */
import jsQR from 'jsqr';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, loginAs, newPhonePage, screenshot, startApp, type RunningApp } from './harness';
import { addDeviceBatch, screenshotPrintView } from './steps';

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

describe('devices and QR labels', () => {
  it('adds a batch, prints its label sheet, moves a device; the old label says it moved', async () => {
    const { page, context, console: logs } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'merchant');
      await page.goto(`${app.url}/merchant/devices`);
      const rows = page.getByTestId('device-row');
      await expect.poll(() => rows.count()).toBe(6);
      await screenshot(page, 'devices-list');

      await addDeviceBatch(page, { prefix: '广场新桩 ', count: 3, shot: 'devices-batch' });
      await expect.poll(() => rows.count()).toBe(9);

      await page.getByRole('button', { name: '打印所选标签（3）' }).click();
      const sheet = page.getByTestId('label-sheet');
      await expect.poll(() => sheet.locator('[data-testid=device-label] svg').count()).toBe(3);
      await screenshot(page, 'devices-labels');
      // The print view on a page the size of A4 at 96 dpi (the phone is narrower than the paper).
      await screenshotPrintView(page, 'devices-labels-print');

      // The browser's own rendering of the first label's code decodes to its pay link.
      const first = sheet.getByTestId('device-label').first();
      const payUrl = await first.getAttribute('data-pay-url');
      expect(payUrl).toMatch(/\/user\/pay\?device_id=\d+&venue_id=1$/);
      const image = await first.locator('svg').evaluate(async (svg) => {
        const size = 400;
        const img = new Image();
        img.src = URL.createObjectURL(new Blob([svg.outerHTML], { type: 'image/svg+xml' }));
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = size;
        canvas.height = size;
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(img, 0, 0, size, size);
        return { size, data: Array.from(ctx.getImageData(0, 0, size, size).data) };
      });
      expect(jsQR(new Uint8ClampedArray(image.data), image.size, image.size)?.data).toBe(payUrl);
      await sheet.getByRole('button', { name: '返回' }).click();

      // Move the first demo device: warned about the label, then shown the new code.
      const oldLink = `${app.url}/user/pay?device_id=1&venue_id=1`;
      await rows.filter({ hasText: '广场 1 号充电桩' }).getByRole('button', { name: '移动' }).click();
      await page.getByText(/已贴的旧标签将失效/).waitFor();
      await page.getByLabel('新场地', { exact: true }).selectOption({ label: '滨江社区店' });
      await screenshot(page, 'devices-move');
      await page.getByRole('button', { name: '确认移动' }).click();
      await page.getByText(/二维码已更新/).waitFor();
      expect(await page.getByTestId('pay-url').textContent()).toMatch(/device_id=1&venue_id=2$/);
      await screenshot(page, 'devices-moved-qr');
      expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);

      await page.goto(oldLink);
      await page.getByText(/设备已移至其他场地/).waitFor();
      await screenshot(page, 'devices-old-label');
    } finally {
      await context.close();
    }
  });
});
