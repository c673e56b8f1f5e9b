// @vitest-environment node
import './user-dom';
/**
 * The `/user/pay` screen rendered (happy-dom) against the real server in process: demo data in a real database,
 * the WeChat sign-in and pay sandboxes, the device simulator. The screen's requests go through the one HTTP client
 * into the app with the member's real session cookie. Nothing of ours is faked.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { merchants } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import { formatFen } from '../../src/domain/money';
import { configureHttp, resetHttp } from '../../src/http/client';
import type { PublicDevice, RechargePackage, ServicePrice } from '../../src/domain/api';
import PayScreen from '../../src/screens/user/pay';
import { demoDevices, rechargeViaCashier } from '../server/money/money-harness';
import { createTestApp, ONLINE_WORLD, type TestWorld } from '../server/test-app';

let world: TestWorld;
let cookie: string | null = null;
const route = ROUTES.find((r) => r.id === 'user-pay')!;

beforeAll(async () => {
  world = await createTestApp(ONLINE_WORLD);
  configureHttp({
    baseURL: '/backend',
    navigate: (p) => window.history.pushState(null, '', p),
    currentPath: () => window.location.pathname + window.location.search,
    log: () => {},
    // The browser would send the HttpOnly cookie itself; here the fetch into the app carries it.
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      if (cookie) headers.set('cookie', cookie);
      return world.app.request(String(input), { ...init, headers });
    }) as typeof fetch,
  });
}, 60_000);

afterEach(() => {
  cleanup();
  window.sessionStorage.clear();
});

afterAll(async () => {
  resetHttp();
  await world?.close();
});

async function demo() {
  const [device] = await demoDevices(world);
  const pub = (await world.json<PublicDevice>(`/backend/api/devices/${device!.id}`)).body;
  const prices = (
    await world.json<{ items: ServicePrice[] }>(`/backend/api/venue-service-prices?venue_id=${pub.venue_id}`)
  ).body.items;
  return { device: pub, prices, link: `/user/pay?device_id=${pub.id}&venue_id=${pub.venue_id}` };
}

function open(link: string) {
  window.history.replaceState(null, '', link);
  render(<PayScreen route={route} params={{}} />);
}

describe('/user/pay screen', () => {
  it('shows the device without a session and sends 微信登录 to WeChat sign-in with the way back', async () => {
    cookie = null;
    const { device, prices, link } = await demo();
    open(link);
    expect(await screen.findByText(device.name)).toBeTruthy();
    expect(screen.getByText(device.product.name, { exact: false })).toBeTruthy();
    for (const p of prices)
      expect(screen.getByTestId(`price-${p.id}`).textContent).toContain(formatFen(p.price_fen));
    fireEvent.click(screen.getByRole('button', { name: '微信登录' }));
    expect(window.location.pathname).toBe('/wechat-login');
    expect(new URLSearchParams(window.location.search).get('redirect')).toBe(link);
  });

  it('with an empty wallet: 余额支付 disabled with the reason, 充值 leads to the recharge with a way back', async () => {
    cookie = (await world.signIn('component-poor')).cookie;
    const { device, link } = await demo();
    open(link);
    expect(await screen.findByTestId('wallet-reason')).toBeTruthy();
    expect(screen.getByTestId('wallet-reason').textContent).toContain('余额不足');
    expect((screen.getByRole('button', { name: /余额支付/ }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: '充值' }));
    expect(window.location.pathname).toBe('/user/profile');
    const q = new URLSearchParams(window.location.search);
    expect(q.get('recharge')).toBe(String(device.merchant_id));
    expect(q.get('back')).toBe(link);
  });

  it('pays from the wallet once, waits for the device and goes to /user/using', async () => {
    const signed = await world.signIn('component-rich');
    cookie = signed.cookie;
    const { device, prices, link } = await demo();
    const pkgs = (
      await world.json<{ items: RechargePackage[] }>(
        `/backend/user/packages?merchant_id=${device.merchant_id}`,
        { headers: { cookie } },
      )
    ).body.items;
    await rechargeViaCashier(world, cookie, device.merchant_id, pkgs[0]!.id);
    await world.settle();
    const price = prices[1] ?? prices[0]!;

    open(link);
    await screen.findByText(formatFen(pkgs[0]!.pay_fen + pkgs[0]!.bonus_fen));
    fireEvent.click(screen.getByTestId(`price-${price.id}`));
    const payButton = screen.getByRole('button', { name: `余额支付 ${formatFen(price.price_fen)}` });
    await waitFor(() => expect((payButton as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(payButton);
    // A double tap on the confirmation sends one request.
    const confirm = await screen.findByRole('button', { name: '确认付款' });
    fireEvent.click(confirm);
    fireEvent.click(confirm);
    await waitFor(() => expect(window.location.pathname).toBe('/user/using'), { timeout: 15_000 });
    const orderNo = new URLSearchParams(window.location.search).get('order_no')!;
    const status = await world.json<{ status: string; amount_fen: number }>(
      `/backend/api/query?order_no=${orderNo}`,
    );
    expect(status.body).toMatchObject({ status: 'started', amount_fen: price.price_fen });
    const history = await world.json<{ total: number }>('/backend/user/consumption-history', {
      headers: { cookie },
    });
    expect(history.body.total).toBe(1);
    // The finished attempt is forgotten, so the next visit starts a new one.
    expect(window.sessionStorage.length).toBe(0);
  }, 30_000);

  it('an old label of a moved device says the device moved, not a bare error', async () => {
    cookie = null;
    const { device } = await demo();
    // The label printed before the move carries the venue the device left.
    open(`/user/pay?device_id=${device.id}&venue_id=${device.venue_id + 1}`);
    expect(await screen.findByText('无法打开设备')).toBeTruthy();
    expect(screen.getByText(/设备已移至其他场地.*新二维码/)).toBeTruthy();
  });
});

async function openDemo() {
  const [device] = await demoDevices(world);
  window.history.replaceState(null, '', `/user/pay?device_id=${device!.id}&venue_id=${device!.venue_id}`);
  render(<PayScreen route={route} params={{}} />);
  expect(await screen.findByText(device!.name)).toBeTruthy();
}

const setStatus = (status: 'active' | 'disabled') =>
  world.database.db.update(merchants).set({ status }).where(eq(merchants.id, 1));

// A merchant the platform disabled (docs/decisions.md D14): why, instead of the pay buttons.
describe('/user/pay at a disabled merchant', () => {
  it('says the merchant stopped instead of offering 余额支付, 微信支付 and 充值', async () => {
    cookie = (await world.signIn('component-closed')).cookie;
    await setStatus('disabled');
    try {
      await openDemo();
      expect((await screen.findByTestId('merchant-closed')).textContent).toContain('该商户已停止营业');
      expect(screen.queryByRole('button', { name: /余额支付/ })).toBeNull();
      expect(screen.queryByRole('button', { name: '微信支付' })).toBeNull();
      expect(screen.queryByRole('button', { name: '充值' })).toBeNull();
    } finally {
      await setStatus('active');
    }
  });

  it('enabled again: the pay buttons are back and the message is gone', async () => {
    await openDemo();
    expect(await screen.findByRole('button', { name: '微信支付' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '充值' })).toBeTruthy();
    expect(screen.queryByTestId('merchant-closed')).toBeNull();
  });
});
