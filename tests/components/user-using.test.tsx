// @vitest-environment node
import './user-dom';
/**
 * `/user/using` rendered against the real server in process: a wallet pay acknowledged by the device simulator
 * shows with its countdown and amount; 结束使用 asks first, then the unused minutes come back as the refund the
 * server booked (the same figure the consumption history reports).
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ConsumptionHistoryItem,
  Page,
  PublicDevice,
  RechargePackage,
  ServicePrice,
} from '../../src/domain/api';
import { formatFen } from '../../src/domain/money';
import { ROUTES } from '../../src/domain/routes';
import { configureHttp, resetHttp } from '../../src/http/client';
import UsingScreen from '../../src/screens/user/using';
import { rechargeViaCashier } from '../server/money/money-harness';
import { createTestApp, ONLINE_WORLD, postJson, type TestWorld, withCookie } from '../server/test-app';

let world: TestWorld;
let cookie = '';
const route = ROUTES.find((r) => r.id === 'user-using')!;

beforeAll(async () => {
  world = await createTestApp(ONLINE_WORLD);
  cookie = (await world.signIn('component-using')).cookie;
  configureHttp({
    baseURL: '/backend',
    navigate: (p) => window.history.pushState(null, '', p),
    currentPath: () => window.location.pathname + window.location.search,
    log: () => {},
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set('cookie', cookie);
      return world.app.request(String(input), { ...init, headers });
    }) as typeof fetch,
  });
}, 60_000);

afterAll(async () => {
  cleanup();
  resetHttp();
  await world?.close();
});

describe('/user/using screen', () => {
  it('counts down the running session and stops it early with the refund', async () => {
    const device = (await world.json<PublicDevice>('/backend/api/devices/3')).body;
    const price = (
      await world.json<{ items: ServicePrice[] }>(
        `/backend/api/venue-service-prices?venue_id=${device.venue_id}`,
      )
    ).body.items[0]!;
    const pkgs = (
      await world.json<{ items: RechargePackage[] }>(
        `/backend/user/packages?merchant_id=${device.merchant_id}`,
        withCookie(cookie),
      )
    ).body.items;
    await rechargeViaCashier(world, cookie, device.merchant_id, pkgs[0]!.id);
    const paid = await world.json<{ order: { order_no: string } }>(
      '/backend/user/pay',
      withCookie(
        cookie,
        postJson(
          { device_id: device.id, venue_id: device.venue_id, price_id: price.id, method: 'wallet' },
          { 'Idempotency-Key': 'component-using-1' },
        ),
      ),
    );
    expect(paid.status).toBe(201);
    await world.settle();

    window.history.replaceState(null, '', '/user/using');
    render(<UsingScreen route={route} params={{}} />);
    const countdown = await screen.findByTestId('countdown');
    const [mm, ss] = countdown.textContent!.split(':').map(Number) as [number, number];
    expect(mm * 60 + ss).toBeLessThanOrEqual(price.minutes * 60);
    expect(mm * 60 + ss).toBeGreaterThan(price.minutes * 60 - 30);
    const session = screen.getByTestId('using-session');
    expect(session.textContent).toContain(device.name);
    expect(session.textContent).toContain(formatFen(price.price_fen));

    fireEvent.click(within(session).getByRole('button', { name: '结束使用' }));
    const dialog = await screen.findByRole('dialog', { hidden: true });
    expect(dialog.textContent).toContain('未使用的分钟数将按比例退款');
    fireEvent.click(within(dialog).getByRole('button', { name: '结束使用', hidden: true }));

    const result = await screen.findByTestId('stop-result');
    const history = await world.json<Page<ConsumptionHistoryItem>>(
      '/backend/user/consumption-history',
      withCookie(cookie),
    );
    const refunded = history.body.items[0]!.refunded_fen;
    expect(refunded).toBeGreaterThan(0);
    expect(result.textContent).toContain(formatFen(refunded));
    await waitFor(() => expect(screen.getByText('暂无使用中的设备')).toBeTruthy());
  }, 30_000);
});
