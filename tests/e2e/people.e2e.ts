/**
 * People in Chromium at 390x844 against the real server: the demo merchant adds an employee with an initial password
 * on /sub-users/sub-users, signs out, and the employee signs in and sees 首页; a member (WeChat user agent, signed in
 * through the sandbox) sends feedback about one of the merchant's devices on /user/feedback, the merchant replies on
 * /merchant/feedback, and the member sees the reply after a reload. Profit sharing is opened once for its screenshot;
 * on members, a member's page pages its wallet entries and switches to orders. The admin picks the merchant for a
 * new partner and for a new rule at that partner. Screenshots docs/screenshots/people-*.
 */
import { eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../server/context';
import { members } from '../../server/db/schema';
import { createMember, fundMember } from '../server/device-sessions/devices-fixtures';
import { bonusCredit } from '../server/withdrawals/wallet-fixtures';
import {
  WECHAT_UA,
  launchBrowser,
  loginAs,
  newPhonePage,
  screenshot,
  startApp,
  type RunningApp,
} from './harness';
import { signIn } from './steps';

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

describe('people', () => {
  it('the merchant adds an employee who signs in; profit sharing and members are shown', async () => {
    const staff = await newPhonePage(browser);
    const { page } = staff;
    try {
      await loginAs(page, app.url, 'merchant');
      await page.goto(`${app.url}/sub-users/sub-users`);
      await page.getByRole('button', { name: '新增', exact: true }).click();
      const sheet = page.getByRole('dialog');
      await sheet.getByLabel('登录用户名', { exact: true }).fill('e2e_clerk');
      await sheet.getByLabel('姓名', { exact: true }).fill('王小店');
      await sheet.getByLabel('初始密码', { exact: true }).fill('clerk-pass-8');
      await screenshot(page, 'people-sub-user-add');
      await sheet.getByRole('button', { name: '保存', exact: true }).click();
      const row = page.getByTestId('sub-user-row').filter({ hasText: 'e2e_clerk' });
      await row.getByText('员工').waitFor();
      // The picture is of the list, not of the passing toast.
      await page.getByText('已保存', { exact: true }).waitFor({ state: 'hidden', timeout: 10_000 });
      await screenshot(page, 'people-sub-users');

      await page.goto(`${app.url}/sub-users/profit-sharing`);
      await page.locator('main').first().waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'people-profit-sharing');

      // A member with a recharge and eleven bonus credits: twelve wallet entries, two pages on the member's page.
      const { db } = app.server.deps as AppDeps;
      const memberId = await createMember(db);
      await db.update(members).set({ nickname: '小林' }).where(eq(members.id, memberId));
      await fundMember(db, memberId, 1, 5000);
      for (let i = 0; i < 11; i++) await bonusCredit(db, memberId, 1, 100);
      await page.goto(`${app.url}/merchant/members`);
      const memberRow = page.getByTestId('member-row').filter({ hasText: '小林' });
      await memberRow.waitFor();
      await screenshot(page, 'people-members');
      await memberRow.click();
      await page.getByText('第 1 / 2 页，共 12 条').waitFor();
      expect(await page.getByTestId('member-history-row').count()).toBe(10);
      await screenshot(page, 'people-member-page');
      await page.getByRole('button', { name: '下一页' }).click();
      await page.getByText('第 2 / 2 页，共 12 条').waitFor();
      expect(await page.getByTestId('member-history-row').count()).toBe(2);
      await page.getByRole('tab', { name: '订单' }).click();
      await expect.poll(() => page.getByTestId('member-history-row').count()).toBe(1);

      // Sign out through 我的, then the new employee signs in with the initial password.
      await page.goto(`${app.url}/profile`);
      await page.getByRole('button', { name: '退出登录' }).click();
      await page.getByRole('dialog').getByRole('button', { name: '退出登录' }).click();
      await page.waitForURL((u) => u.pathname === '/admin-login');
      await signIn(page, app.url, 'e2e_clerk', 'clerk-pass-8');
      await page.waitForURL(`${app.url}/dashboard`);
      await page.getByRole('heading', { name: '首页' }).waitFor();
      await page.getByText('您好，王小店').waitFor();
      await screenshot(page, 'people-employee-home');
      expect(staff.console.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await staff.context.close();
    }
  });

  it('a member sends feedback, the merchant replies, the member sees the reply', async () => {
    const member = await newPhonePage(browser, { userAgent: WECHAT_UA });
    const staff = await newPhonePage(browser);
    const text = '充电桩插头接触不良，请尽快处理';
    const reply = '已派人检修，给您添麻烦了';
    try {
      await member.page.goto(
        `${app.url}/backend/wechat/authorize?redirect=${encodeURIComponent('/user/feedback?device_id=1')}&sandbox_openid=e2e-feedback-member`,
      );
      await member.page.waitForURL((u) => u.pathname === '/user/feedback');
      await member.page.getByLabel('问题描述').fill(text);
      await member.page.getByRole('button', { name: '提交反馈' }).click();
      const mine = member.page.getByTestId('feedback-row').filter({ hasText: text });
      await mine.getByText('等待商家回复').waitFor();
      await screenshot(member.page, 'people-feedback-sent');

      const { page } = staff;
      await loginAs(page, app.url, 'merchant');
      // 首页's 用户反馈 tile counts the feedback waiting for a reply, this one included.
      const tileCount = page.getByTestId('tile-count');
      await tileCount.waitFor();
      const waiting = Number(await tileCount.textContent());
      expect(waiting).toBeGreaterThanOrEqual(1);
      expect(await tileCount.getAttribute('aria-label')).toBe(`${waiting} 条待回复`);
      await screenshot(page, 'people-feedback-tile');
      await page.goto(`${app.url}/merchant/feedback`);
      const row = page.getByTestId('feedback-row').filter({ hasText: text });
      await row.getByRole('button', { name: '回复', exact: true }).click();
      const sheet = page.getByRole('dialog');
      await sheet.getByLabel('回复', { exact: true }).fill(reply);
      await screenshot(page, 'people-feedback-reply');
      await sheet.getByRole('button', { name: '发送回复' }).click();
      const sent = page.getByText('回复已发送，会员可在“我的反馈”中看到');
      await sent.waitFor();
      await sent.waitFor({ state: 'hidden', timeout: 10_000 });
      await page.getByRole('tab', { name: '已回复' }).click();
      await page.getByTestId('feedback-row').filter({ hasText: text }).getByText(reply).waitFor();
      await screenshot(page, 'people-feedback-inbox');
      await page.goto(`${app.url}/dashboard`);
      if (waiting === 1) await page.getByRole('link', { name: /用户反馈/ }).waitFor();
      await expect
        .poll(async () => Number((await tileCount.count()) ? await tileCount.textContent() : 0))
        .toBe(waiting - 1);

      await member.page.reload();
      await member.page
        .getByTestId('feedback-row')
        .filter({ hasText: text })
        .getByText(`商家回复：${reply}`)
        .waitFor();
      await screenshot(member.page, 'people-feedback-answered');
      const errors = [...member.console, ...staff.console].filter((l) => l.type === 'pageerror');
      expect(errors).toEqual([]);
    } finally {
      await member.context.close();
      await staff.context.close();
    }
  });

  it('the admin picks the merchant for a new sub-user and for profit sharing', async () => {
    const staff = await newPhonePage(browser);
    const { page } = staff;
    try {
      await loginAs(page, app.url, 'admin');
      await page.goto(`${app.url}/sub-users/sub-users`);
      await page.getByTestId('sub-user-row').first().waitFor();
      await page.getByRole('button', { name: '新增', exact: true }).click();
      const sheet = page.getByRole('dialog');
      await sheet.getByLabel('所属商户').selectOption({ label: '星河共享自助' });
      await sheet.getByLabel('登录用户名', { exact: true }).fill('admin_made_partner');
      await sheet.getByLabel('姓名', { exact: true }).fill('赵合伙');
      await sheet.getByLabel('角色').selectOption({ label: '分润合伙人' });
      await sheet.getByLabel('初始密码', { exact: true }).fill('partner-pass-8');
      await screenshot(page, 'people-admin-sub-user-add');
      await sheet.getByRole('button', { name: '保存', exact: true }).click();
      await page
        .getByTestId('sub-user-row')
        .filter({ hasText: 'admin_made_partner' })
        .getByText(/星河共享自助/)
        .waitFor();

      await page.goto(`${app.url}/sub-users/profit-sharing`);
      const add = page.getByRole('button', { name: '新增规则' });
      await page.getByTestId('share-rule-row').first().waitFor();
      expect(await add.isDisabled()).toBe(true);
      await page.getByRole('combobox', { name: '商户' }).selectOption({ label: '星河共享自助' });
      await expect.poll(() => add.isDisabled()).toBe(false);
      await add.click();
      const form = page.getByRole('dialog');
      await form.getByLabel('场地').selectOption({ label: '滨江社区店' });
      await form.getByLabel('合伙人').selectOption({ label: '赵合伙' });
      await form.getByLabel('分润比例（%）').fill('15');
      await screenshot(page, 'people-admin-share-rule');
      await form.getByRole('button', { name: '保存', exact: true }).click();
      await page.getByTestId('share-rule-row').filter({ hasText: '赵合伙 · 15%' }).waitFor();
      expect(staff.console.filter((l) => l.type === 'pageerror')).toEqual([]);
    } finally {
      await staff.context.close();
    }
  });
});
