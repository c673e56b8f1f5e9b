/**
 * The four reports and the two daily screens in Chromium at 390x844 against the real server with 40 days of
 * sample orders: presets change the range, the chart draws, the tables fill, the CSV downloads (BOM, header, the
 * file name says report and range); the employee's daily cash shows only their own cash. Screenshots into
 * docs/screenshots/.
 */
import fs from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/client';
import { accounts } from '../../server/db/schema';
import { seedSampleOrders } from '../../scripts/report-sample-data';
import { launchBrowser, loginAs, newPhonePage, screenshot, startApp, type RunningApp } from './harness';

let app: RunningApp;
let browser: Browser;
beforeAll(async () => {
  app = await startApp();
  const db = (app.server.deps as { db: Db }).db;
  const [employee] = await db.select().from(accounts).where(eq(accounts.username, 'employee'));
  await seedSampleOrders(db, {
    merchantId: 1,
    employeeId: employee!.id,
    orders: 3000,
    days: 40,
    end: new Date(),
    tag: 'e2e',
  });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Clicks 导出 CSV and returns the downloaded file's name and bytes. */
async function downloadCsv(page: Page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: '导出 CSV' }).click(),
  ]);
  const file = await download.path();
  return { name: download.suggestedFilename(), bytes: fs.readFileSync(file) };
}

const REPORTS = [
  { path: '/reports/consumption', title: '消费报表', header: '商户,场地,方式,笔数' },
  { path: '/reports/recharge', title: '充值报表', header: '方式,笔数,实付(元)' },
  { path: '/reports/device-usage', title: '设备使用报表', header: '商户,场地,设备,编号' },
  { path: '/reports/cash', title: '现金报表', header: '日期,商户,经办人' },
] as const;

describe('reports', () => {
  for (const r of REPORTS)
    it(`${r.path}: presets, chart, tables and CSV`, async () => {
      const { page, context, console: logs } = await newPhonePage(browser);
      try {
        await loginAs(page, app.url, 'merchant');
        await page.goto(`${app.url}${r.path}`);
        await page.getByTestId('report-totals').waitFor();
        await page.getByRole('button', { name: '近 7 天' }).click();
        await page.getByTestId('report-chart').locator('canvas').waitFor();
        await page.getByRole('button', { name: '近 30 天' }).click();
        await expect.poll(() => page.getByTestId('report-range').textContent()).toMatch(/ 至 /);
        const canvas = page.getByTestId('report-chart').locator('canvas');
        await canvas.waitFor();
        expect((await canvas.boundingBox())!.width).toBeGreaterThan(300);
        expect(await page.getByTestId('report-days').locator('tbody tr').count()).toBe(30);
        expect(await page.getByTestId('report-rows').locator('tbody tr').count()).toBeGreaterThan(0);
        // The range survives a reload (it is in the address).
        const range = await page.getByTestId('report-range').textContent();
        await page.reload();
        await expect.poll(() => page.getByTestId('report-range').textContent()).toBe(range);
        await page.getByTestId('report-chart').locator('canvas').waitFor();
        await screenshot(page, `reports-${r.path.split('/')[2]}`);

        const csv = await downloadCsv(page);
        const [from, to] = range!.split(' 至 ');
        expect(csv.name).toBe(`${r.title}_${from}_${to}.csv`);
        expect([...csv.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
        const text = csv.bytes.subarray(3).toString('utf8');
        expect(text.startsWith(r.header)).toBe(true);
        expect(text.trimEnd().split('\r\n').at(-1)!.startsWith('合计')).toBe(true);
        expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
      } finally {
        await context.close();
      }
    });

  it('the admin filters by merchant, then by venue', async () => {
    const { page, context } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'admin');
      await page.goto(`${app.url}/reports/consumption`);
      await page.getByTestId('report-totals').waitFor();
      await page.getByRole('button', { name: '近 30 天' }).click();
      await page.getByLabel('商户', { exact: true }).selectOption({ label: '星河共享自助' });
      await expect.poll(() => page.url()).toContain('merchant_id=1');
      await page.getByLabel('场地', { exact: true }).selectOption({ label: '滨江社区店' });
      await expect.poll(() => page.url()).toContain('venue_id=2');
      const venues = page.getByTestId('report-rows').locator('tbody tr');
      await expect.poll(() => venues.count()).toBeGreaterThan(0);
      for (const text of await venues.allTextContents()) expect(text).toContain('滨江社区店');
      await page.getByTestId('report-chart').locator('canvas').waitFor();
      await screenshot(page, 'reports-admin-filters');
    } finally {
      await context.close();
    }
  });

  it('the daily screens: one day, the employee sees their own cash', async () => {
    const { page, context } = await newPhonePage(browser);
    try {
      await loginAs(page, app.url, 'employee');
      await page.goto(`${app.url}/daily/cash`);
      await page.getByTestId('report-totals').waitFor();
      await page.getByRole('button', { name: '前一天' }).click();
      await page.getByRole('button', { name: '今天' }).waitFor();
      const rows = page.getByTestId('report-rows').locator('tbody tr');
      await expect.poll(() => rows.count()).toBeGreaterThan(0);
      for (const text of await rows.allTextContents()) expect(text).toContain('店员 · 王强');
      await screenshot(page, 'daily-cash');
      const csv = await downloadCsv(page);
      expect(csv.name).toMatch(/^现金日报_\d{4}-\d{2}-\d{2}\.csv$/);

      await page.goto(`${app.url}/daily/recharge`);
      await page.getByTestId('report-totals').waitFor();
      await page.getByRole('button', { name: '前一天' }).click();
      await page.getByTestId('report-rows').locator('tbody tr').first().waitFor();
      await screenshot(page, 'daily-recharge');
    } finally {
      await context.close();
    }
  });
});
