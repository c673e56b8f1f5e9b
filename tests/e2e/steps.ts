/**
 * Steps several browser tests take the same way, through the real screens: signing in with any account, filling the
 * merchant form, adding a batch of devices, the label sheet's print view, a member signed in through the WeChat
 * sandbox and a WeChat Pay through the sandbox cashier.
 */
import type { Page } from 'playwright-core';
import { screenshot } from './harness';

/** Signs in through /admin-login with any account (does not wait: the caller knows where it should land). */
export async function signIn(page: Page, baseUrl: string, username: string, password: string) {
  await page.goto(`${baseUrl}/admin-login`);
  await page.getByLabel('用户名').fill(username);
  await page.getByLabel('密码').fill(password);
  await page.getByRole('button', { name: '登录', exact: true }).click();
}

export interface NewMerchant {
  name: string;
  contact: string;
  phone: string;
  feeBasisPoints: number;
  owner: string;
  password: string;
}

/** Fills the add-merchant form (on /admin/merchants/add) without submitting it. */
export async function fillMerchantForm(page: Page, m: NewMerchant) {
  await page.getByLabel('商户名称', { exact: true }).fill(m.name);
  await page.getByLabel('联系人', { exact: true }).fill(m.contact);
  await page.getByLabel('联系电话', { exact: true }).fill(m.phone);
  await page.getByLabel('平台费率（基点）', { exact: true }).fill(String(m.feeBasisPoints));
  await page.getByLabel('负责人登录账号', { exact: true }).fill(m.owner);
  await page.getByLabel('初始密码', { exact: true }).fill(m.password);
}

/**
 * On /merchant/devices: opens 批量添加, fills prefix and count (and the venue and model when given, by their
 * labels) and waits for the screen to say they were added and selected. `shot` is taken on the filled form.
 */
export async function addDeviceBatch(
  page: Page,
  opts: { prefix: string; count: number; venue?: string; model?: string; shot?: string },
) {
  await page.getByRole('button', { name: '批量添加' }).click();
  if (opts.venue) await page.getByLabel('场地', { exact: true }).selectOption({ label: opts.venue });
  if (opts.model) await page.getByLabel('型号', { exact: true }).selectOption({ label: opts.model });
  await page.getByLabel('名称前缀', { exact: true }).fill(opts.prefix);
  await page.getByLabel('数量', { exact: true }).fill(String(opts.count));
  if (opts.shot) await screenshot(page, opts.shot);
  await page.getByRole('button', { name: '确认添加' }).click();
  await page.getByText(`已添加 ${opts.count} 台，已选中，可打印标签`).waitFor();
}

/**
 * The page scale back to 1. A phone never changes width, but the emulated one does here: Chromium keeps the scale
 * limits it worked out at the other width, and the next focused <select> zooms the page (pointer clicks would land
 * beside their targets). Detaching the CDP session also drops the emulated media type, so callers set it after.
 */
async function resetPageScale(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.resetPageScaleFactor');
  await cdp.detach();
}

/**
 * Screenshots the page as printed on A4 (print media, 794x1123 at 96 dpi), once the label sheet is laid out for
 * paper (three 64 mm columns), then puts the phone back as it was.
 */
export async function screenshotPrintView(page: Page, name: string) {
  await page.setViewportSize({ width: 794, height: 1123 });
  await resetPageScale(page);
  await page.emulateMedia({ media: 'print' });
  await page.waitForFunction(() => {
    const sheet = document.querySelector('.label-sheet');
    return (
      matchMedia('print').matches &&
      innerWidth === 794 &&
      !!sheet &&
      getComputedStyle(sheet).gridTemplateColumns.split(' ').length === 3
    );
  });
  await screenshot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await resetPageScale(page);
  await page.emulateMedia({ media: 'screen' });
}

/**
 * Opens `payLink` (path and query) as a member signed in at once through the WeChat sandbox (`sandbox_openid`
 * skips the consent page) and waits for the pay page.
 */
export async function openSignedInWeChat(page: Page, baseUrl: string, payLink: string, openid: string) {
  await page.goto(
    `${baseUrl}/backend/wechat/authorize?redirect=${encodeURIComponent(payLink)}&sandbox_openid=${openid}`,
  );
  await page.waitForURL((u) => u.pathname === '/user/pay');
}

/**
 * On the pay page with a price chosen: 微信支付, 确认付款, then the sandbox cashier's 确认支付 (`cashierShot` is taken
 * on the cashier), and waits until the device runs (the countdown on /user/using).
 */
export async function payWithWeChatSandbox(page: Page, opts: { cashierShot?: string } = {}) {
  await page.getByRole('button', { name: '微信支付' }).click();
  await page.getByRole('button', { name: '确认付款' }).click();
  await page.getByRole('button', { name: '确认支付' }).waitFor();
  if (opts.cashierShot) await screenshot(page, opts.cashierShot);
  await page.getByRole('button', { name: '确认支付' }).click();
  await page.waitForURL((u) => u.pathname === '/user/using', { timeout: 30_000 });
  await page.getByTestId('countdown').waitFor({ timeout: 30_000 });
}
