// @vitest-environment node
import './user-dom';
/**
 * `/employee/cash-recharge` rendered against the real server in process (real app, real database, the demo
 * employee's token): a mistyped code refused before any request, an unknown code's 404 message, the member with
 * the balance, the note required before any POST, the confirm dialog with member and amount, one credit with the
 * result's new balance and the row in today's list.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members, orders, wallets } from '../../server/db/schema';
import { forgetMe } from '../../src/app/staff-features';
import type { LoginResponse } from '../../src/domain/api';
import { checkDigit } from '../../src/domain/member-code';
import { ROUTES } from '../../src/domain/routes';
import { configureHttp, resetHttp } from '../../src/http/client';
import CashRechargeScreen from '../../src/screens/employee/cash-recharge';
import { createTestApp, postJson, type TestApp } from '../server/test-app';

let t: TestApp;
const route = ROUTES.find((r) => r.id === 'employee-cash-recharge')!;
let requests: string[] = [];
let code = '';
let memberId = 0;

beforeAll(async () => {
  t = await createTestApp();
  const [m] = await t.deps.db
    .insert(members)
    .values({ openid: 'cash-screen', nickname: '柜台小王' })
    .returning();
  code = m!.code;
  memberId = m!.id;
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
      requests.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return t.app.request(String(input), init);
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

const typeCode = (value: string) => {
  fireEvent.change(screen.getByLabelText('会员码'), { target: { value } });
  fireEvent.click(screen.getByRole('button', { name: '查询会员' }));
};

describe('/employee/cash-recharge screen', () => {
  it('finds the member, requires the note, confirms, credits once and lists it', async () => {
    render(<CashRechargeScreen route={route} params={{}} />);
    await screen.findByText('今天还没有现金充值');

    requests = [];
    typeCode('1234 5678');
    await screen.findByText('会员码应为 8 位数字，请核对后重新输入');
    expect(requests.filter((r) => r.includes('/employee/member'))).toEqual([]);

    typeCode(`9000000${checkDigit('9000000')}`);
    await screen.findByText(/未找到该会员码对应的会员/);

    typeCode(code);
    const card = await screen.findByTestId('cash-member');
    within(card).getByText('柜台小王');
    expect(within(card).getAllByText('¥0.00').length).toBeGreaterThan(0);

    fireEvent.change(screen.getByLabelText('或输入金额（元）'), { target: { value: '50' } });
    requests = [];
    fireEvent.click(screen.getByRole('button', { name: '确认充值' }));
    await screen.findByText('请填写备注（如收款人、顾客描述）');
    fireEvent.change(screen.getByLabelText('备注'), { target: { value: '前台收现' } });
    fireEvent.click(screen.getByRole('button', { name: '确认充值' }));
    await screen.findByText(/会员：柜台小王（\d{8}）\s*收取现金 ¥50\.00，到账 ¥50\.00/);
    expect(requests.filter((r) => r.startsWith('POST'))).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: '已收现金，确认充值' }));
    const result = await screen.findByTestId('cash-result');
    within(result).getByText('充值成功');
    within(result).getByText('¥50.00', { selector: '.text-2xl' });
    await waitFor(() => within(screen.getByTestId('cash-today')).getByText(/前台收现/));

    const [w] = await t.deps.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.member_id, memberId), eq(wallets.merchant_id, 1)));
    // Cash keeps its source (docs/decisions.md D18): the 50 yuan sit in the cash principal.
    expect(w!.cash_principal_fen).toBe(5000);
    expect(w!.principal_fen).toBe(0);
    const cash = await t.deps.db.select().from(orders).where(eq(orders.member_id, memberId));
    expect(cash).toHaveLength(1);
    expect(cash[0]).toMatchObject({ method: 'cash', amount_fen: 5000, note: '前台收现' });

    fireEvent.click(screen.getByRole('button', { name: '继续充值' }));
    await screen.findByLabelText('会员码');
  });
});
