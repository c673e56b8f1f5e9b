// @vitest-environment node
import './user-dom';
/**
 * `/employee/device-charging` stopping a WeChat-paid session, against the real server in process (real app, real
 * database, the WeChat sandbox, the device simulator, the demo employee's token): the confirmation says the unused
 * time goes back to the member's WeChat, and so does the result; never 已退回余额 or cash wording. The server
 * answers `refund_to: 'wechat'` and the refund is an outbox row, the member's wallet untouched.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetMe } from '../../src/app/staff-features';
import type { LoginResponse } from '../../src/domain/api';
import { ROUTES } from '../../src/domain/routes';
import { configureHttp, resetHttp } from '../../src/http/client';
import DeviceChargingScreen from '../../src/screens/employee/device-charging';
import { demoDevices } from '../server/money/money-harness';
import { payByWechat, refundsOf } from '../server/refunds/refund-helpers';
import { createTestApp, ONLINE_WORLD, postJson, type TestApp } from '../server/test-app';

let t: TestApp<typeof ONLINE_WORLD>;
const route = ROUTES.find((r) => r.id === 'employee-device-charging')!;
const stops: { status: number; body: string }[] = [];

beforeAll(async () => {
  t = await createTestApp(ONLINE_WORLD);
  const { body } = await t.json<LoginResponse>(
    '/backend/auth/login',
    postJson({ username: 'employee', password: 'demo1234' }),
  );
  localStorage.setItem('token', body.token);
  localStorage.setItem('user', JSON.stringify(body.user));
  configureHttp({
    baseURL: '/backend',
    stores: { local: localStorage, session: sessionStorage },
    navigate: (p) => window.history.pushState(null, '', p),
    currentPath: () => window.location.pathname + window.location.search,
    log: () => {},
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await t.app.request(String(input), init);
      if (String(input).endsWith('/stop')) stops.push({ status: res.status, body: await res.clone().text() });
      return res;
    }) as typeof fetch,
  });
}, 60_000);

afterAll(async () => {
  cleanup();
  resetHttp();
  forgetMe();
  localStorage.clear();
  await t?.close();
});

describe('/employee/device-charging: stopping a WeChat-paid session', () => {
  it('says the unused time goes back to the member’s WeChat, before and after the stop', async () => {
    const [device] = await demoDevices(t);
    const { cookie } = await t.signIn('o-employee-stop-wechat');
    const paid = await payByWechat(t, cookie, device!);

    render(<DeviceChargingScreen route={route} params={{}} />);
    const row = await screen.findByText(device!.name, {}, { timeout: 5000 });
    const card = row.closest('li')!;
    fireEvent.click(await within(card).findByRole('button', { name: '结束' }, { timeout: 5000 }));

    const dialog = (await screen.findByText('结束使用')).closest('dialog')!;
    expect(dialog.textContent).toContain('原路退回会员的微信');
    expect(dialog.textContent).not.toContain('余额');
    expect(dialog.textContent).not.toContain('现金');
    fireEvent.click(within(dialog).getByRole('button', { name: '结束' }));

    const toast = await screen.findByText(/已结束，退款/, {}, { timeout: 5000 });
    expect(toast.textContent).toContain('将原路退回会员的微信，可在会员的消费记录查看进度');
    expect(toast.textContent).not.toContain('余额');
    expect(stops).toHaveLength(1);
    expect(JSON.parse(stops[0]!.body)).toMatchObject({ method: 'wechat', refund_to: 'wechat' });

    // The refund is on its way to WeChat: an outbox row, nothing credited to the member's wallet.
    await waitFor(async () => expect(await refundsOf(t, paid.order_id)).toHaveLength(1));
    const profile = await t.json<{ wallets: { principal_fen: number }[] }>('/backend/user/profile', {
      headers: { cookie },
    });
    expect(profile.body.wallets.every((x) => x.principal_fen === 0)).toBe(true);
  }, 30_000);
});
