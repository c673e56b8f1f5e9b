/**
 * The end-user journey (docs/decisions.md D7) in a real Chromium at 390x844 with a WeChat user agent (but
 * no WeixinJSBridge, so the sandbox cashier stands in for WeChat Pay), against the real server with its sandboxes
 * and device simulator: the pay link of demo device 1, WeChat sign-in through the sandbox consent page, a recharge
 * through the sandbox cashier, a wallet pay, the using page counting down, an early stop with its refund, and both
 * histories. Screenshots of every step go to docs/screenshots/journey-*.png.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicDevice, RechargePackage, ServicePrice } from '../../src/domain/api';
import { formatFen } from '../../src/domain/money';
import { launchBrowser, newPhonePage, pathOf, screenshot, startApp, type RunningApp } from './harness';
import { openSignedInWeChat, payWithWeChatSandbox } from './steps';

/** The user agent of WeChat on Android named by the brief; no bridge is injected. */
const WECHAT_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/116.0.0.0 Mobile ' +
  'Safari/537.36 MicroMessenger/8.0.49.2600 NetType/WIFI Language/zh_CN';

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

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(app.url + path);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** Reads an amount like "¥12.34" (or "-¥3.00") from a locator's text into fen. */
async function fenOf(page: Page, testId: string): Promise<number> {
  const text = (await page.getByTestId(testId).first().innerText()).trim();
  const m = /(-?)¥([\d,]+)\.(\d{2})/.exec(text);
  if (!m) throw new Error(`no amount in ${text}`);
  const fen = Number(m[2]!.replace(/,/g, '')) * 100 + Number(m[3]);
  return m[1] ? -fen : fen;
}

describe('end-user journey', () => {
  it('pay link -> WeChat sign-in -> recharge -> wallet pay -> countdown -> stop early -> refund -> histories', async () => {
    const device = await getJson<PublicDevice>('/backend/api/devices/1');
    const prices = (
      await getJson<{ items: ServicePrice[] }>(
        `/backend/api/venue-service-prices?venue_id=${device.venue_id}`,
      )
    ).items;
    const price = prices[0]!;
    const payLink = `/user/pay?device_id=${device.id}&venue_id=${device.venue_id}`;
    const { page, context, console: logs } = await newPhonePage(browser, { userAgent: WECHAT_UA });
    try {
      await journey(page, context, logs, { device, price, payLink });
    } catch (err) {
      // Leave evidence of where it stopped (outside docs/, which holds only the real journey).
      await page.screenshot({ path: '/tmp/journey-failure.png' }).catch(() => {});
      console.error(
        'journey stopped on',
        page.url(),
        '\n',
        await page
          .locator('body')
          .innerText()
          .catch(() => ''),
      );
      console.error(logs.slice(-20));
      throw err;
    } finally {
      await context.close();
    }
  }, 180_000);

  it('WeChat Pay on the pay page: cashier 取消 keeps the choice, 确认支付 runs the device', async () => {
    const device = await getJson<PublicDevice>('/backend/api/devices/2');
    const prices = (
      await getJson<{ items: ServicePrice[] }>(
        `/backend/api/venue-service-prices?venue_id=${device.venue_id}`,
      )
    ).items;
    const price = prices[0]!;
    const payLink = `/user/pay?device_id=${device.id}&venue_id=${device.venue_id}`;
    const { page, context, console: logs } = await newPhonePage(browser, { userAgent: WECHAT_UA });
    try {
      // Signed in through the sandbox at once (sandbox_openid), landing back on the pay link.
      await openSignedInWeChat(page, app.url, payLink, 'e2e-wechat-pay');
      await page.getByTestId('device-name').getByText(device.name).waitFor();
      await page.getByRole('button', { name: '充值' }).waitFor();

      // First the cashier's 取消: back on the page, nothing paid, the user can choose again.
      await page.getByRole('button', { name: '微信支付' }).click();
      await page.getByRole('button', { name: '确认付款' }).click();
      await page.getByRole('button', { name: '取消' }).waitFor();
      expect(await page.getByTestId('cashier-amount').innerText()).toBe(formatFen(price.price_fen));
      await page.getByRole('button', { name: '取消' }).click();
      await page.waitForURL((u) => u.pathname === '/user/pay');
      await page.getByText('已取消支付').waitFor();
      expect(new URL(page.url()).searchParams.has('order_no')).toBe(false);

      // Then 确认支付: the page asks the server until the device runs.
      await payWithWeChatSandbox(page);
      await page.getByText(formatFen(price.price_fen)).first().waitFor();
      const origin = new URL(page.url()).origin;
      await page.goto(`${origin}/user/consumption-history`);
      const row = page.getByTestId('consumption-row').first();
      await row.waitFor();
      expect(await row.innerText()).toContain('微信支付');
      expect(await page.getByTestId('consumption-row').count()).toBe(1);
      expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
    } catch (err) {
      await page.screenshot({ path: '/tmp/journey-wechat-failure.png' }).catch(() => {});
      console.error(
        'stopped on',
        page.url(),
        '\n',
        await page
          .locator('body')
          .innerText()
          .catch(() => ''),
      );
      throw err;
    } finally {
      await context.close();
    }
  }, 180_000);
});

async function journey(
  page: Page,
  context: BrowserContext,
  logs: { type: string; text: string }[],
  { device, price, payLink }: { device: PublicDevice; price: ServicePrice; payLink: string },
) {
  {
    // 1. The QR code's link: the device shows before any sign-in.
    await page.goto(app.url + payLink);
    await page.getByTestId('device-name').getByText(device.name).waitFor();
    await page.getByRole('button', { name: '微信登录' }).waitFor();
    await page.getByText(formatFen(price.price_fen)).first().waitFor();
    await screenshot(page, 'journey-01-pay-link');

    // 2. WeChat sign-in: our page, then the sandbox's consent page, then back on the pay page with a cookie.
    await page.getByRole('button', { name: '微信登录' }).click();
    await page.waitForURL((u) => u.pathname === '/wechat-login');
    expect(new URL(page.url()).searchParams.get('redirect')).toBe(payLink);
    await screenshot(page, 'journey-02-wechat-login');
    await page.getByRole('button', { name: '微信登录' }).click();
    await page.getByRole('heading', { name: '模拟微信授权' }).waitFor();
    await screenshot(page, 'journey-03-wechat-consent');
    await page.getByRole('button', { name: '确认授权' }).click();
    await page.waitForURL((u) => u.pathname === '/user/pay');
    expect(pathOf(page)).toBe(payLink);
    await page.getByRole('button', { name: '充值' }).waitFor();
    const cookies = await context.cookies();
    expect(cookies.some((c) => c.httpOnly && c.sameSite === 'Lax')).toBe(true);
    // No money yet: 余额支付 is disabled with the reason.
    await page.getByTestId('wallet-reason').getByText('余额不足').waitFor();
    expect(await page.getByRole('button', { name: /余额支付/ }).isDisabled()).toBe(true);
    await screenshot(page, 'journey-04-signed-in');

    // 3. Recharge through the sandbox cashier.
    await page.getByRole('button', { name: '充值' }).click();
    await page.waitForURL((u) => u.pathname === '/user/profile');
    const pkgs = await page.evaluate(
      async (merchantId) =>
        (await (await fetch(`/backend/user/packages?merchant_id=${merchantId}`)).json()) as {
          items: RechargePackage[];
        },
      device.merchant_id,
    );
    const pkg = pkgs.items.find((p) => p.pay_fen >= price.price_fen) ?? pkgs.items[0]!;
    await page.getByTestId(`package-${pkg.id}`).waitFor();
    await screenshot(page, 'journey-05-packages');
    await page.getByTestId(`package-${pkg.id}`).click();
    await page.getByRole('button', { name: '确认支付' }).waitFor();
    expect(await page.getByTestId('cashier-amount').innerText()).toBe(formatFen(pkg.pay_fen));
    await screenshot(page, 'journey-06-cashier');
    await page.getByRole('button', { name: '确认支付' }).click();
    await page.waitForURL((u) => u.pathname === '/user/profile');
    const credited = pkg.pay_fen + pkg.bonus_fen;
    const wallet = page.getByTestId(`wallet-${device.merchant_id}`);
    await wallet.getByText(formatFen(credited)).first().waitFor({ timeout: 30_000 });
    await page.getByText('充值成功').waitFor();
    await screenshot(page, 'journey-07-recharged');

    // 4. Back to the device and pay from the wallet.
    await page.getByRole('button', { name: '返回支付' }).click();
    await page.waitForURL((u) => u.pathname === '/user/pay');
    await page.getByTestId(`price-${price.id}`).click();
    const walletPay = page.getByRole('button', { name: /余额支付/ });
    await expect.poll(() => walletPay.isEnabled()).toBe(true);
    await walletPay.click();
    await page.getByRole('button', { name: '确认付款' }).waitFor();
    await screenshot(page, 'journey-08-confirm-pay');
    await page.getByRole('button', { name: '确认付款' }).click();

    // 5. The device acknowledges; /user/using counts down.
    await page.waitForURL((u) => u.pathname === '/user/using', { timeout: 30_000 });
    const countdown = page.getByTestId('countdown');
    await countdown.waitFor({ timeout: 30_000 });
    const first = await countdown.innerText();
    expect(first).toMatch(/^\d{2}:\d{2}$/);
    const [mm, ss] = first.split(':').map(Number) as [number, number];
    expect(mm * 60 + ss).toBeLessThanOrEqual(price.minutes * 60);
    expect(mm * 60 + ss).toBeGreaterThan(price.minutes * 60 - 60);
    await expect.poll(async () => countdown.innerText(), { timeout: 5000 }).not.toBe(first);
    await page.getByText(formatFen(price.price_fen)).first().waitFor();
    await screenshot(page, 'journey-09-using');

    // 6. Stop early: confirmation, then the refund of the unused minutes.
    await page.getByRole('button', { name: '结束使用' }).click();
    await page.getByText('未使用的分钟数将按比例退款').waitFor();
    await screenshot(page, 'journey-10-stop-confirm');
    await page.getByRole('dialog').getByRole('button', { name: '结束使用' }).click();
    await page.getByTestId('stop-result').waitFor();
    const refund = await fenOf(page, 'stop-result');
    expect(refund).toBeGreaterThan(0);
    expect(refund).toBeLessThanOrEqual(price.price_fen);
    await page.getByText('暂无使用中的设备').waitFor();
    await screenshot(page, 'journey-11-stopped-refund');

    // 7. Both histories show the right amounts; the wallet adds up. (The session cookie belongs to the origin the
    // sign-in came back to, which is the server's public URL; stay on it.)
    const origin = new URL(page.url()).origin;
    await page.goto(`${origin}/user/recharge-history`);
    const rechargeRow = page.getByTestId('recharge-row').first();
    await rechargeRow.waitFor();
    expect(await rechargeRow.innerText()).toContain(formatFen(pkg.pay_fen));
    if (pkg.bonus_fen > 0) expect(await rechargeRow.innerText()).toContain(formatFen(pkg.bonus_fen));
    await screenshot(page, 'journey-12-recharge-history');

    await page.goto(`${origin}/user/consumption-history`);
    const consumeRow = page.getByTestId('consumption-row').first();
    await consumeRow.waitFor();
    expect(await consumeRow.innerText()).toContain(formatFen(-price.price_fen));
    await consumeRow.getByTestId('refund').getByText(formatFen(refund)).waitFor();
    await screenshot(page, 'journey-13-consumption-history');

    await page.goto(`${origin}/user/profile`);
    await wallet
      .getByText(formatFen(credited - price.price_fen + refund))
      .first()
      .waitFor();
    await screenshot(page, 'journey-14-profile');

    expect(logs.filter((l) => l.type === 'pageerror')).toEqual([]);
  }
}
