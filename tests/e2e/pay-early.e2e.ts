/**
 * The pay page before its JavaScript: its HTML (dist/pay.html) carries the page's frame and the frame's CSS, and one
 * inline script starts its four GETs after the first frame; the app then takes those answers instead of asking
 * again (src/http/preload.ts). Checked in a real Chromium at 390x844 against the real server: the frame with every
 * script file blocked, each of the four calls made exactly once, nothing moving when the data arrives (no layout
 * shift), the largest paint being the frame's own text, and the frame absent on other pages.
 */
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRELOAD_GLOBAL } from '../../src/http/preload';
import { WECHAT_UA, launchBrowser, newPhonePage, screenshot, startApp, type RunningApp } from './harness';

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

const PAY = '/user/pay?device_id=1&venue_id=1';
const EARLY = [
  '/backend/api/devices/1',
  '/backend/api/venues/1',
  '/backend/api/venue-service-prices?venue_id=1',
  '/backend/user/profile',
];

describe('the pay page paints before its JavaScript and data arrive', () => {
  it('shows the frame (device card, price slots, both pay buttons) with every script file blocked', async () => {
    const { page, context } = await newPhonePage(browser, { userAgent: WECHAT_UA });
    try {
      await page.route(/\/assets\/.*\.js$/, (r) => r.abort());
      await page.route(/\/backend\//, (r) => r.abort());
      await page.goto(app.url + PAY);
      const shell = page.locator('[data-screen="user-pay-shell"]');
      await expect.poll(() => shell.count()).toBe(1);
      await expect.poll(() => page.getByRole('heading', { name: '扫码支付' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: '余额支付' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: '微信支付' }).isDisabled()).toBe(true);
      expect(await page.locator('.skeleton').count()).toBeGreaterThan(5);
      await screenshot(page, 'pay-shell');
    } finally {
      await context.close();
    }
  });

  it('the app uses the early answers: each of the four calls goes out once, and nothing shifts', async () => {
    const { page, context, console: logs } = await newPhonePage(browser, { userAgent: WECHAT_UA });
    try {
      const seen: string[] = [];
      page.on('request', (r: Request) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith('/backend/')) seen.push(u.pathname + u.search);
      });
      await page.addInitScript(() => {
        const w = window as unknown as { __cls: number; __lcp: string[] };
        w.__cls = 0;
        w.__lcp = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries() as (PerformanceEntry & { element: Element | null })[])
            w.__lcp.push(e.element?.getAttribute('data-testid') ?? e.element?.tagName ?? '?');
        }).observe({ type: 'largest-contentful-paint', buffered: true });
        new PerformanceObserver((list) => {
          for (const e of list.getEntries() as (PerformanceEntry & {
            value: number;
            hadRecentInput: boolean;
          })[])
            if (!e.hadRecentInput) w.__cls += e.value;
        }).observe({ type: 'layout-shift', buffered: true });
      });
      await page.goto(app.url + PAY);
      await page.getByTestId('device-name').waitFor();
      await page.getByRole('button', { name: '微信登录' }).waitFor();
      await page.waitForTimeout(300);
      for (const url of EARLY)
        expect(
          seen.filter((s) => s === url),
          url,
        ).toHaveLength(1);
      const left = await page.evaluate(
        (name) => Object.keys((window as unknown as Record<string, object>)[name] ?? {}),
        PRELOAD_GLOBAL,
      );
      expect(left).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { __cls: number }).__cls)).toBe(0);
      // The largest paint is the notice the HTML carries, not a text that needs the data (docs/performance.md).
      expect(await page.evaluate(() => (window as unknown as { __lcp: string[] }).__lcp.at(-1))).toBe(
        'pay-notice',
      );
      expect(await page.locator('[data-screen="user-pay-shell"]').count()).toBe(0);
      expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('other pages and a pay link without its ids start nothing early', async () => {
    const { page, context } = await newPhonePage(browser);
    try {
      const early: string[] = [];
      page.on('request', (r: Request) => {
        if (r.url().includes('/backend/api/devices/')) early.push(r.url());
      });
      await page.goto(app.url + '/admin-login');
      await page.getByLabel('用户名').waitFor();
      expect(await page.evaluate((name) => name in window, PRELOAD_GLOBAL)).toBe(false);
      await page.goto(app.url + '/user/pay?device_id=1');
      await page.waitForURL(/\/(admin-login|dashboard)$/);
      expect(early).toEqual([]);
      expect(await page.locator('[data-screen="user-pay-shell"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
