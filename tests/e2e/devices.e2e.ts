/**
 * `/merchant/devices` in Chromium at 390x844 against the real server: the merchant adds a batch of three devices,
 * opens their label sheet and its print view (print media), whose first QR code, rasterised by the browser, decodes
 * to that device's pay link; moves a device (the label warning, then the new code) and opens the old label's link,
 * which says the device moved. Then one device's code is downloaded as PNG and as SVG (both decode to its pay link)
 * and the labels of a whole venue are printed. On a device's edit sheet the merchant generates a new MQTT secret
 * (confirmed first), sees it once, and the device connects to the broker with it.
 */
import jsQR from 'jsqr';
import mqtt from 'mqtt';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, loginAs, newPhonePage, screenshot, startApp, type RunningApp } from './harness';
import { addDeviceBatch, screenshotPrintView } from './steps';

/** Draws an image file (base64) in the browser at 400 px and reads its QR code back. */
async function decodeImage(page: Page, base64: string, mime: string): Promise<string | undefined> {
  const image = await page.evaluate(
    async ({ base64, mime }) => {
      const size = 400;
      const img = new Image();
      img.src = `data:${mime};base64,${base64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = size;
      canvas.height = size;
      const ctx = canvas.getContext('2d')!;
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(img, 0, 0, size, size);
      return { size, data: Array.from(ctx.getImageData(0, 0, size, size).data) };
    },
    { base64, mime },
  );
  return jsQR(new Uint8ClampedArray(image.data), image.size, image.size)?.data;
}

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
      const svg = await first.locator('svg').evaluate((el) => el.outerHTML);
      expect(await decodeImage(page, Buffer.from(svg).toString('base64'), 'image/svg+xml')).toBe(payUrl);
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

  it("downloads one device's code as PNG and SVG, and prints the labels of a whole venue", async () => {
    const { page, context, console: logs } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'merchant');
      await page.goto(`${app.url}/merchant/devices`);
      const rows = page.getByTestId('device-row');
      const row = rows.filter({ hasText: '社区按摩椅 B' });
      await row.getByRole('button', { name: '二维码' }).click();
      const link = await page.getByTestId('pay-url').textContent();
      expect(link).toMatch(/\/user\/pay\?device_id=\d+&venue_id=2$/);
      // Both files decode, drawn by the browser, to the device's pay link.
      for (const kind of ['PNG', 'SVG'] as const) {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: `下载 ${kind}` }).click(),
        ]);
        expect(download.suggestedFilename()).toMatch(new RegExp(`^[\\w-]+\\.${kind.toLowerCase()}$`));
        const bytes = fs.readFileSync((await download.path())!);
        if (kind === 'PNG') expect([...bytes.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
        else expect(bytes.toString('utf8')).toMatch(/^<svg /);
        const mime = kind === 'PNG' ? 'image/png' : 'image/svg+xml';
        expect(await decodeImage(page, bytes.toString('base64'), mime)).toBe(link);
      }
      await page.getByRole('button', { name: '关闭' }).click();

      // A label sheet for a whole venue: one label for each device standing there now.
      await page.getByLabel('场地', { exact: true }).selectOption({ label: '滨江社区店' });
      // The filtered list has arrived: rows again, none of the other venue (an empty list is still loading).
      await expect
        .poll(
          async () =>
            (await rows.count()) > 0 && (await rows.filter({ hasText: '星河广场店' }).count()) === 0,
        )
        .toBe(true);
      const atVenue = await rows.count();
      expect(atVenue).toBeGreaterThanOrEqual(3);
      await page.getByRole('button', { name: '打印本场地全部标签' }).click();
      const sheet = page.getByTestId('label-sheet');
      await expect.poll(() => sheet.locator('[data-testid=device-label] svg').count()).toBe(atVenue);
      const urls = await sheet
        .getByTestId('device-label')
        .evaluateAll((els) => els.map((e) => e.dataset.payUrl));
      expect(urls.every((u) => u?.endsWith('&venue_id=2'))).toBe(true);
      expect(urls).toContain(link);
      expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('generates a device secret on its edit sheet: confirmed first, shown once, and the device connects with it', async () => {
    const { page, context, console: logs } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'merchant');
      await page.goto(`${app.url}/merchant/devices`);
      const row = page.getByTestId('device-row').filter({ hasText: '广场 2 号充电桩' });
      await row.getByRole('button', { name: '编辑' }).click();
      const panel = page.getByRole('region', { name: '设备密钥' });
      await panel.getByText('XH-CP-0002').waitFor();
      await panel.getByRole('button', { name: '生成新密钥' }).click();
      await panel.getByText(/旧密钥立即失效/).waitFor();
      await screenshot(page, 'devices-secret-confirm');
      await panel.getByRole('button', { name: '确认生成' }).press('Enter');
      const code = panel.getByTestId('device-secret');
      await code.waitFor();
      const secret = (await code.textContent())!.trim();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await screenshot(page, 'devices-secret-shown');
      // The embedded broker takes the new secret for that serial, and nothing else.
      const broker = (app.server.deps as { devices: { gateway: { brokerUrl: string } } }).devices.gateway
        .brokerUrl;
      const opts = { username: 'XH-CP-0002', reconnectPeriod: 0, connectTimeout: 5000 } as const;
      const device = await mqtt.connectAsync(broker, { ...opts, clientId: 'e2e-secret', password: secret });
      expect(device.connected).toBe(true);
      await device.endAsync();
      await expect(
        mqtt.connectAsync(broker, { ...opts, clientId: 'e2e-bad', password: 'x' }),
      ).rejects.toThrow();
      // Shown once: the sheet opened again says a secret is set, without showing it.
      await page.keyboard.press('Escape');
      await row.getByRole('button', { name: '编辑' }).click();
      await page
        .getByRole('region', { name: '设备密钥' })
        .getByText(/已设置/)
        .waitFor();
      expect(await page.content()).not.toContain(secret);
      expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
