/**
 * The app shell in a real Chromium at 390x844 against the real server: guard and exemptions, the pay-page query
 * rule, sign-in and the tab bar per level, the headers on real requests, the 401 rules, unreadable stored user,
 * a token only in session storage, and screens arriving as separate chunks.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  loginAs,
  newPhonePage,
  pathOf,
  readStorages,
  screenshot,
  startApp,
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

describe('route guard', () => {
  it('sends a visitor without a token to /admin-login from every guarded page', async () => {
    const { page, context } = await newPhonePage(browser);
    for (const p of [
      '/',
      '/dashboard',
      '/wallet',
      '/profile',
      '/merchant/venues',
      '/admin/merchants/7',
      '/daily/cash',
    ]) {
      await page.goto(app.url + p);
      await page.waitForURL(`${app.url}/admin-login`);
      expect(pathOf(page)).toBe('/admin-login');
    }
    await page.getByRole('heading', { name: '管理员登录' }).waitFor();
    await context.close();
  });

  it('lets a visitor open the exempt pages', async () => {
    const { page, context } = await newPhonePage(browser);
    await page.goto(`${app.url}/wechat-login?redirect=%2Fuser%2Fprofile`);
    await page.getByRole('button', { name: '微信登录' }).waitFor();
    expect(pathOf(page)).toBe('/wechat-login?redirect=%2Fuser%2Fprofile');
    await page.goto(`${app.url}/login`);
    await page.waitForURL(`${app.url}/admin-login`);
    for (const p of [
      '/user/using',
      '/user/profile',
      '/user/recharge-history',
      '/user/consumption-history',
      '/user/feedback',
    ]) {
      await page.goto(app.url + p);
      await page.waitForLoadState('networkidle');
      // An end-user page may itself go on to WeChat sign-in, never to the staff sign-in.
      expect(pathOf(page)).not.toBe('/admin-login');
    }
    await context.close();
  });
});

describe('WeChat sign-in page', () => {
  it('微信登录 starts WeChat authorization with the page to come back to (same-origin paths only)', async () => {
    const { page, context } = await newPhonePage(browser);
    await page.goto(
      `${app.url}/wechat-login?redirect=${encodeURIComponent('/user/pay?device_id=1&venue_id=1')}`,
    );
    const started = page.waitForRequest((r) => r.url().includes('/backend/wechat/authorize'));
    await page.getByRole('button', { name: '微信登录' }).click();
    const url = new URL((await started).url());
    expect(url.searchParams.get('redirect')).toBe('/user/pay?device_id=1&venue_id=1');
    // A foreign redirect is replaced by the end-user profile.
    await page.goto(`${app.url}/wechat-login?redirect=${encodeURIComponent('//evil.example/x')}`);
    const again = page.waitForRequest((r) => r.url().includes('/backend/wechat/authorize'));
    await page.getByRole('button', { name: '微信登录' }).click();
    expect(new URL((await again).url()).searchParams.get('redirect')).toBe('/user/profile');
    await context.close();
  });
});

describe('pay page query rule', () => {
  it('sends /user/pay without device_id or venue_id to / (then the guard), keeps it with both', async () => {
    const { page, context } = await newPhonePage(browser);
    for (const q of ['', '?device_id=1', '?venue_id=1', '?device_id=&venue_id=1']) {
      await page.goto(`${app.url}/user/pay${q}`);
      await page.waitForURL(`${app.url}/admin-login`);
    }
    await page.goto(`${app.url}/user/pay?device_id=1&venue_id=1`);
    await page.waitForLoadState('networkidle');
    expect(pathOf(page)).not.toBe('/admin-login');
    expect(pathOf(page).startsWith('/admin-login')).toBe(false);
    await context.close();
  });
});

describe('sign-in and tab bar', () => {
  it('shows the server error in Chinese on a wrong password', async () => {
    const { page, context } = await newPhonePage(browser);
    await page.goto(`${app.url}/admin-login`);
    await page.getByLabel('用户名').fill('merchant');
    await page.getByLabel('密码').fill('wrong-password');
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('用户名或密码错误');
    expect(pathOf(page)).toBe('/admin-login');
    await context.close();
  });

  it('level 2 (merchant): lands on /dashboard with 首页 and 我的', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'merchant');
    const dock = page.getByRole('navigation', { name: '底部导航' });
    await dock.waitFor();
    await expect(dock.getByRole('button').allTextContents()).resolves.toEqual(['首页', '我的']);
    await expect(dock.locator('[aria-current="page"]').textContent()).resolves.toBe('首页');
    await dock.getByRole('button', { name: '我的' }).click();
    await page.waitForURL(`${app.url}/profile`);
    await expect(page.getByTestId('profile-name').textContent()).resolves.toBeTruthy();
    // On load, a tab path that is not the level's goes to the first tab.
    await page.goto(`${app.url}/wallet`);
    await page.waitForURL(`${app.url}/dashboard`);
    // Deeper pages keep their URL on reload and show the bar with no tab active.
    await page.goto(`${app.url}/merchant/venues`);
    await page.getByRole('heading', { name: '场地管理' }).waitFor();
    expect(pathOf(page)).toBe('/merchant/venues');
    await expect(dock.locator('[aria-current="page"]').count()).resolves.toBe(0);
    await context.close();
  });

  it('level 3 (partner): lands on /wallet with 钱包 and 我的; /dashboard on load goes to /wallet', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'partner');
    const dock = page.getByRole('navigation', { name: '底部导航' });
    await dock.waitFor();
    await expect(dock.getByRole('button').allTextContents()).resolves.toEqual(['钱包', '我的']);
    await expect(dock.locator('[aria-current="page"]').textContent()).resolves.toBe('钱包');
    await page.goto(`${app.url}/dashboard`);
    await page.waitForURL(`${app.url}/wallet`);
    await context.close();
  });

  it('level 3 (partner) opening / (or a pay link without its query, sent to /) lands on /wallet, not /dashboard', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'partner');
    const dock = page.getByRole('navigation', { name: '底部导航' });
    for (const opened of ['/', '/user/pay']) {
      await page.goto(app.url + opened);
      await dock.waitFor();
      await page.waitForLoadState('networkidle');
      expect(pathOf(page), opened).toBe('/wallet');
      await page.getByRole('heading', { name: '钱包', exact: true }).waitFor();
      await expect(dock.getByRole('button').allTextContents()).resolves.toEqual(['钱包', '我的']);
      await expect(dock.locator('[aria-current="page"]').textContent()).resolves.toBe('钱包');
    }
    // The profile names the partner's role and level.
    await dock.getByRole('button', { name: '我的' }).click();
    await page.waitForURL(`${app.url}/profile`);
    await expect(page.getByRole('listitem').filter({ hasText: '角色' }).textContent()).resolves.toContain(
      '分润合伙人',
    );
    await expect(page.getByRole('listitem').filter({ hasText: '级别' }).textContent()).resolves.toContain(
      '3',
    );
    await context.close();
  });

  it('level 2 (merchant) opening / lands on /dashboard with 首页 active', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'merchant');
    const dock = page.getByRole('navigation', { name: '底部导航' });
    await page.goto(`${app.url}/`);
    await dock.waitFor();
    await page.waitForLoadState('networkidle');
    expect(pathOf(page)).toBe('/dashboard');
    await page.getByRole('heading', { name: '首页', exact: true }).waitFor();
    await expect(dock.getByRole('button').allTextContents()).resolves.toEqual(['首页', '我的']);
    await expect(dock.locator('[aria-current="page"]').textContent()).resolves.toBe('首页');
    await context.close();
  });
});

describe('storage and 401 rules', () => {
  it('a 401 from the server clears both storages and lands on /admin-login', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'merchant');
    const { local } = await readStorages(page);
    expect(local.token).toBeTruthy();
    // Revoke the token through the API, then copy it into session storage too, then navigate.
    await page.evaluate(async (token) => {
      await fetch('/backend/auth/logout', { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
      sessionStorage.setItem('token', token ?? '');
      sessionStorage.setItem('user', localStorage.getItem('user') ?? '');
    }, local.token);
    await page.goto(`${app.url}/profile`);
    await page.getByRole('button', { name: '退出登录' }).waitFor();
    await page.goto(`${app.url}/dashboard`);
    await page.waitForURL(`${app.url}/admin-login`);
    const after = await readStorages(page);
    expect(after).toEqual({ local: { token: null, user: null }, session: { token: null, user: null } });
    await context.close();
  });

  it('an unreadable stored user is logged and sends no user headers', async () => {
    const { page, context, console: messages } = await newPhonePage(browser);
    await loginAs(page, app.url, 'merchant');
    await page.evaluate(() => localStorage.setItem('user', '{not json'));
    const seen: Record<string, string>[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/backend/')) seen.push(r.headers());
    });
    await page.goto(`${app.url}/dashboard`);
    await page.waitForLoadState('networkidle');
    expect(messages.some((m) => m.text.includes('Failed to parse user data'))).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    for (const h of seen) {
      expect(h['x-userlevel']).toBeUndefined();
      expect(h['x-merchantid']).toBeUndefined();
      expect(h.authorization).toMatch(/^Bearer /);
    }
    await context.close();
  });
});

describe('headers, end-user 401, session storage, chunks', () => {
  it('staff calls carry bearer + X-UserLevel + X-MerchantID; /api/ and /user/ calls carry no bearer', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'merchant');
    const user = JSON.parse((await readStorages(page)).local.user ?? '{}') as {
      merchant_id: number;
      level: number;
    };
    expect(user.level).toBe(2);
    const seen: { url: string; headers: Record<string, string> }[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/backend/')) seen.push({ url: new URL(r.url()).pathname, headers: r.headers() });
    });
    await page.goto(`${app.url}/dashboard`);
    await page.getByTestId('today-amount').waitFor();
    await page.goto(`${app.url}/user/pay?device_id=1&venue_id=1`);
    await page.waitForLoadState('networkidle');
    const staff = seen.filter((s) => s.url === '/backend/dashboard' || s.url === '/backend/auth/me');
    const open = seen.filter((s) => s.url.startsWith('/backend/api/') || s.url.startsWith('/backend/user/'));
    expect(staff.length).toBeGreaterThan(0);
    expect(open.length).toBeGreaterThan(0);
    for (const s of staff) {
      expect(s.headers.authorization).toMatch(/^Bearer .+/);
      expect(s.headers['x-userlevel']).toBe('2');
      expect(s.headers['x-merchantid']).toBe(String(user.merchant_id));
    }
    for (const s of open) {
      expect(s.headers.authorization).toBeUndefined();
      expect(s.headers['x-userlevel']).toBe('2');
      expect(s.headers['x-merchantid']).toBe(String(user.merchant_id));
    }
    await context.close();
  });

  it('a 401 on /backend/user/* leaves the staff session alone and never goes to /admin-login', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'merchant');
    const before = await readStorages(page);
    const unauthorized: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/backend/user/') && r.status() === 401)
        unauthorized.push(new URL(r.url()).pathname);
    });
    await page.goto(`${app.url}/user/pay?device_id=1&venue_id=1`);
    await page.waitForLoadState('networkidle');
    expect(unauthorized.length).toBeGreaterThan(0);
    expect(await readStorages(page)).toEqual(before);
    expect(pathOf(page).startsWith('/admin-login')).toBe(false);
    await context.close();
  });

  it('a token only in session storage is enough: the guard lets it through and the bearer is sent', async () => {
    const { page, context } = await newPhonePage(browser);
    await page.goto(`${app.url}/admin-login`);
    await page.evaluate(async () => {
      const res = await fetch('/backend/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'employee', password: 'demo1234' }),
      });
      const body = (await res.json()) as { token: string; user: unknown };
      localStorage.clear();
      sessionStorage.setItem('token', body.token);
      sessionStorage.setItem('user', JSON.stringify(body.user));
    });
    const auth: (string | undefined)[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/backend/auth/me') auth.push(r.headers().authorization);
    });
    await page.goto(`${app.url}/dashboard`);
    await page.getByRole('region', { name: '员工工作台' }).waitFor();
    expect(pathOf(page)).toBe('/dashboard');
    expect(auth[0]).toMatch(/^Bearer .+/);
    await context.close();
  });

  it('screens arrive as separate chunks, loaded on navigation', async () => {
    const { page, context } = await newPhonePage(browser);
    const js: string[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('.js')) js.push(new URL(r.url()).pathname);
    });
    await page.goto(`${app.url}/admin-login`);
    await page.getByRole('heading', { name: '管理员登录' }).waitFor();
    expect(js.some((p) => /\/admin-login-[\w-]+\.js$/.test(p))).toBe(true);
    expect(js.some((p) => /\/dashboard-[\w-]+\.js$/.test(p))).toBe(false);
    await loginAs(page, app.url, 'merchant');
    await page.getByRole('heading', { name: '首页' }).waitFor();
    expect(js.some((p) => /\/dashboard-[\w-]+\.js$/.test(p))).toBe(true);
    const before = js.length;
    expect(js.some((p) => /\/venues-[\w-]+\.js$/.test(p))).toBe(false);
    await page.getByRole('link', { name: '场地管理' }).click();
    await page.getByRole('heading', { name: '场地管理' }).waitFor();
    expect(js.slice(before).some((p) => /\/venues-[\w-]+\.js$/.test(p))).toBe(true);
    await context.close();
  });
});

describe('screens of the shell', () => {
  it('/daily/cash shows the cash report screen (same chunk as /reports/cash)', async () => {
    const { page, context } = await newPhonePage(browser);
    const js: string[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('.js')) js.push(new URL(r.url()).pathname);
    });
    await loginAs(page, app.url, 'merchant');
    await page.goto(`${app.url}/daily/cash`);
    await page.getByRole('heading', { name: '今日现金' }).waitFor();
    const cashChunks = js.filter((p) => /\/cash-[\w-]+\.js$/.test(p));
    expect(cashChunks.length).toBe(1);
    await page.goto(`${app.url}/reports/cash`);
    await page.getByRole('heading', { name: '现金报表' }).waitFor();
    expect(new Set(js.filter((p) => /\/cash-[\w-]+\.js$/.test(p)))).toEqual(new Set(cashChunks));
    await page.getByRole('button', { name: '返回' }).click();
    await page.waitForURL(`${app.url}/dashboard`);
    await context.close();
  });

  it('a level without the feature sees 无权限访问; an unknown path shows 页面不存在 with a way home', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'employee');
    await page.goto(`${app.url}/merchant/venues`);
    await page.getByText('无权限访问').waitFor();
    await page.goto(`${app.url}/no/such/page`);
    await page.getByRole('heading', { name: '页面不存在' }).waitFor();
    await page.getByRole('link', { name: '返回首页' }).click();
    await page.waitForURL(`${app.url}/dashboard`);
    await context.close();
  });

  it('退出登录 asks first, revokes the token and lands on /admin-login with both storages empty', async () => {
    const { page, context } = await newPhonePage(browser);
    await loginAs(page, app.url, 'merchant');
    const token = (await readStorages(page)).local.token;
    await page.getByRole('navigation', { name: '底部导航' }).getByRole('button', { name: '我的' }).click();
    await page.getByRole('button', { name: '退出登录' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '退出登录' }).click();
    await page.waitForURL(`${app.url}/admin-login`);
    expect(await readStorages(page)).toEqual({
      local: { token: null, user: null },
      session: { token: null, user: null },
    });
    const status = await page.evaluate(
      async (t) => (await fetch('/backend/auth/me', { headers: { Authorization: `Bearer ${t}` } })).status,
      token,
    );
    expect(status).toBe(401);
    await context.close();
  });

  it('an old kernel (no color-mix / :has) gets a readable Chinese notice instead of the app', async () => {
    const { page, context } = await newPhonePage(browser);
    await page.addInitScript(() => {
      CSS.supports = () => false;
    });
    await page.goto(`${app.url}/admin-login`);
    await page.getByText('浏览器版本过低').waitFor();
    await expect(page.locator('#root').isVisible()).resolves.toBe(false);
    await context.close();
  });
});

describe('permissions matrix', () => {
  it('the admin switches a feature off for merchants; the merchant loses its tile and sees 无权限访问', async () => {
    const admin = await newPhonePage(browser);
    await loginAs(admin.page, app.url, 'admin');
    await admin.page.goto(`${app.url}/admin/permissions`);
    const box = admin.page.getByRole('checkbox', { name: '商户 · 会员管理' });
    await box.waitFor();
    expect(await box.isChecked()).toBe(true);
    await screenshot(admin.page, 'shell-permissions');
    await box.click();
    await admin.page.getByRole('button', { name: /保存（1 项修改）/ }).click();
    await admin.page.getByText('权限已保存').waitFor();
    await admin.context.close();

    const merchant = await newPhonePage(browser);
    await loginAs(merchant.page, app.url, 'merchant');
    await merchant.page.getByRole('region', { name: '商户运营' }).waitFor();
    await expect(merchant.page.getByRole('link', { name: '会员管理' }).count()).resolves.toBe(0);
    await merchant.page.goto(`${app.url}/merchant/members`);
    await merchant.page.getByText('无权限访问').waitFor();
    await merchant.context.close();
  });
});
