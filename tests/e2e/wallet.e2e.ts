/**
 * The wallet and withdrawals in Chromium at 390x844 against the real server: a member pays for 120 minutes on demo
 * device 1 with WeChat Pay (the sandbox cashier), which credits the demo partner's 20% share; the partner lands
 * on /wallet, sees it and their own rule (venue 1, 20%), is refused an amount under 1 yuan, requests 1 yuan after
 * a confirmation (frozen at once); the admin filters the requests by merchant, approves it and marks it paid with a
 * transfer reference, each confirmed; the partner sees the timeline. The merchant reaches its own wallet from the
 * 钱包 tile on 首页.
 */
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import type { AppDeps } from '../../server/context';
import { device_sessions } from '../../server/db/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WECHAT_UA,
  launchBrowser,
  loginAs,
  newPhonePage,
  screenshot,
  startApp,
  type DemoAccount,
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

async function as<T>(account: DemoAccount, run: (page: Page) => Promise<T>): Promise<T> {
  const { page, context, console: logs } = await newPhonePage(browser);
  try {
    await loginAs(page, app.url, account);
    const out = await run(page);
    expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
    return out;
  } catch (err) {
    await page.screenshot({ path: `/tmp/wallet-e2e-${account}-failure.png` }).catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
}

async function memberPays120Minutes() {
  const payLink = '/user/pay?device_id=1&venue_id=1';
  const { page, context } = await newPhonePage(browser, { userAgent: WECHAT_UA });
  try {
    await page.goto(
      `${app.url}/backend/wechat/authorize?redirect=${encodeURIComponent(payLink)}&sandbox_openid=e2e-wallet`,
    );
    await page.waitForURL((u) => u.pathname === '/user/pay');
    await page.getByRole('radio', { name: /120 分钟/ }).click();
    await page.getByRole('button', { name: '微信支付' }).click();
    await page.getByRole('button', { name: '确认付款' }).click();
    await page.getByRole('button', { name: '确认支付' }).click();
    await page.waitForURL((u) => u.pathname === '/user/using', { timeout: 30_000 });
  } finally {
    await context.close();
  }
}

describe('wallet and withdrawals', () => {
  it('a partner sees a share, withdraws it; the admin approves and pays; the partner sees the timeline', async () => {
    await memberPays120Minutes();

    // 600 fen paid: fee 6% (36), the partner's 20% of the net 564 = 112; held while the device still runs.
    await as('partner', async (page) => {
      await page.getByTestId('available').getByText('¥1.12').waitFor();
      await page.getByTestId('wallet-entry').filter({ hasText: '消费分账' }).first().waitFor();
      await page
        .getByTestId('reserved')
        .getByText(/¥1\.12 来自使用中的设备/)
        .waitFor();
      expect(await page.getByRole('button', { name: '申请提现' }).isDisabled()).toBe(true);
      // The partner's own rule, with the ratio and since when it applies.
      const rule = page.getByTestId('my-share-rule');
      await rule.filter({ hasText: '星河广场店' }).filter({ hasText: '20%' }).waitFor();
      expect(await rule.count()).toBe(1);
      await screenshot(page, 'wallet-partner-running');

      // The 120 minutes pass: the scheduler ends the session as it does at ends_at.
      const { db } = app.server.deps as AppDeps;
      await db
        .update(device_sessions)
        .set({ ends_at: new Date() })
        .where(eq(device_sessions.status, 'running'));
      await expect
        .poll(async () => (await db.select().from(device_sessions)).every((x) => x.status === 'ended'), {
          timeout: 15_000,
        })
        .toBe(true);
      await page.reload();
      await page.getByTestId('available').getByText('¥1.12').waitFor();
      expect(await page.getByTestId('reserved').count()).toBe(0);
      await screenshot(page, 'wallet-partner');

      await page.getByRole('button', { name: '申请提现' }).click();
      const amount = page.getByLabel('提现金额（元）');
      await amount.fill('0.5');
      await page.getByRole('button', { name: '下一步' }).click();
      await page.getByText('提现金额至少 1 元').waitFor();
      await amount.fill('1');
      await page.getByRole('button', { name: '下一步' }).click();
      await page.getByText('确认提现？').waitFor();
      await screenshot(page, 'wallet-withdraw-confirm');
      await page.getByRole('button', { name: '确认提现' }).click();
      await page.getByText('提现申请已提交，金额已冻结').waitFor();
      await page.getByTestId('available').getByText('¥0.12').waitFor();
      await page.getByTestId('frozen').getByText('¥1.00').waitFor();
      await page.getByTestId('own-withdrawal').getByText('待审核').waitFor();
      await screenshot(page, 'wallet-withdraw-requested');
    });

    await as('admin', async (page) => {
      await page.goto(`${app.url}/merchant/withdrawals`);
      // The admin narrows the list to the demo merchant with the merchant filter.
      await page.getByTestId('withdrawal-row').first().waitFor();
      await page.getByRole('combobox', { name: '商户' }).selectOption({ label: '星河共享自助' });
      const row = page.getByTestId('withdrawal-row').filter({ hasText: '合伙人 · 李娜' }).first();
      await row.click();
      await page.getByTestId('withdrawal-detail').waitFor();
      await screenshot(page, 'withdrawals-admin-detail');
      await page.getByRole('button', { name: '批准', exact: true }).click();
      await page.getByText('批准这笔提现？').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: '批准', exact: true }).click();
      await page.getByTestId('withdrawal-detail').getByText('已批准').first().waitFor();

      await page.getByRole('button', { name: '标记已打款' }).click();
      await page.getByLabel('转账凭证号').fill('ICBC-20261123-0001');
      await page.getByRole('button', { name: '下一步' }).click();
      await page.getByText('确认已打款？').waitFor();
      await page.getByRole('button', { name: '确认已打款' }).click();
      await page.getByText('已标记打款').waitFor();
      await page.getByTestId('withdrawal-detail').getByText('转账凭证：ICBC-20261123-0001').waitFor();
      expect(await page.getByTestId('timeline-event').count()).toBe(3);
      await screenshot(page, 'withdrawals-admin-paid');
    });

    await as('partner', async (page) => {
      await page.getByTestId('own-withdrawal').getByText('已打款').waitFor();
      await page.getByTestId('own-withdrawal').first().getByRole('button').click();
      const events = page.getByTestId('timeline-event');
      await expect.poll(() => events.count()).toBe(3);
      expect(await events.nth(0).innerText()).toContain('申请提现 ¥1.00');
      expect(await events.nth(1).innerText()).toContain('平台管理员');
      expect(await events.nth(2).innerText()).toContain('ICBC-20261123-0001');
      await page.getByTestId('frozen').getByText('¥0.00').waitFor();
      await screenshot(page, 'wallet-partner-timeline');
    });
  });

  it('the merchant opens its settlement wallet from the 钱包 tile on 首页', async () => {
    await as('merchant', async (page) => {
      await page.getByRole('main').getByRole('link', { name: /钱包/ }).first().click();
      await page.waitForURL(`${app.url}/wallet`);
      // 600 - 36 fee - 112 share = 452 fen.
      await page.getByTestId('available').getByText('¥4.52').waitFor();
      await page.getByText('结算钱包 · 可提现').waitFor();
      expect(await page.getByTestId('my-share-rule').count()).toBe(0);
    });
  });
});
