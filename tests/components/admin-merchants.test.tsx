// @vitest-environment node
import './user-dom';
/**
 * `/admin/merchants`, `/admin/merchants/add` and `/admin/merchants/{id}` rendered against the real server in process
 * (real app, real database, a real admin token): the list, the add form's validation with the shared schema before
 * any request, the server's 409 for a taken username shown on its field, a saved merchant with its owner in the
 * database, editing with a confirmation before disabling, search, and enabling again from the list.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accounts, merchants } from '../../server/db/schema';
import { forgetMe } from '../../src/app/staff-features';
import type { LoginResponse } from '../../src/domain/api';
import { ROUTES } from '../../src/domain/routes';
import { configureHttp, resetHttp } from '../../src/http/client';
import MerchantEditScreen from '../../src/screens/admin/merchant-edit';
import MerchantsScreen from '../../src/screens/admin/merchants';
import { createTestApp, postJson, type TestApp } from '../server/test-app';

let t: TestApp;
const routeOf = (id: string) => ROUTES.find((r) => r.id === id)!;
let requests: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  const { body } = await t.json<LoginResponse>(
    '/backend/auth/login',
    postJson({ username: 'admin', password: 'demo1234' }),
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

afterEach(() => cleanup());
afterAll(async () => {
  resetHttp();
  forgetMe();
  localStorage.clear();
  await t?.close();
});

const field = (label: string) => screen.getByLabelText(label);
const type = (label: string, value: string) => fireEvent.change(field(label), { target: { value } });

describe('/admin/merchants screens', () => {
  it('adds a merchant: validates before sending, shows the taken username on its field, saves the owner', async () => {
    window.history.replaceState(null, '', '/admin/merchants/add');
    render(<MerchantEditScreen route={routeOf('admin-merchant-add')} params={{}} />);
    const create = await screen.findByRole('button', { name: '创建商户' });
    requests = [];
    fireEvent.click(create);
    await screen.findByText('请输入商户名称');
    expect(screen.getByText('初始密码至少 8 位')).toBeTruthy();
    expect(requests.filter((r) => r.startsWith('POST'))).toEqual([]);

    type('商户名称', '湖畔洗衣');
    type('联系人', '李湖');
    type('联系电话', '13912345678');
    type('平台费率（基点）', '450');
    expect(screen.getByText(/4\.50%/)).toBeTruthy();
    type('负责人登录账号', 'merchant');
    type('初始密码', 'lake-pass-9');
    fireEvent.click(create);
    await screen.findByText('该登录账号已被使用，请换一个');
    expect(window.location.pathname).toBe('/admin/merchants/add');

    type('负责人登录账号', 'lake_owner');
    fireEvent.click(create);
    await waitFor(() => expect(window.location.pathname).toBe('/admin/merchants'));
    const [m] = await t.deps.db.select().from(merchants).where(eq(merchants.name, '湖畔洗衣'));
    expect(m).toMatchObject({ contact_name: '李湖', fee_rate_bp: 450, status: 'active' });
    const [owner] = await t.deps.db.select().from(accounts).where(eq(accounts.username, 'lake_owner'));
    expect(owner).toMatchObject({ level: 2, role: 'merchant', merchant_id: m!.id });
  });

  it('edits a merchant: loads it, refuses a bad fee rate, asks before disabling, saves', async () => {
    const [m] = await t.deps.db.select().from(merchants).where(eq(merchants.name, '湖畔洗衣'));
    window.history.replaceState(null, '', `/admin/merchants/${m!.id}`);
    render(<MerchantEditScreen route={routeOf('admin-merchant-edit')} params={{ id: String(m!.id) }} />);
    await waitFor(() => expect((field('商户名称') as HTMLInputElement).value).toBe('湖畔洗衣'));
    expect(screen.getByTestId('merchant-owner').textContent).toContain('lake_owner');
    expect(screen.queryByLabelText('初始密码')).toBeNull();

    requests = [];
    type('平台费率（基点）', '12000');
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await screen.findByText('费率不能超过 10000 基点（100%）');
    expect(requests.filter((r) => r.startsWith('PUT'))).toEqual([]);

    type('平台费率（基点）', '800');
    fireEvent.change(field('状态'), { target: { value: 'disabled' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await screen.findByText('停用该商户？');
    expect(requests.filter((r) => r.startsWith('PUT'))).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: '停用' }));
    await waitFor(() => expect(window.location.pathname).toBe('/admin/merchants'));
    const [after] = await t.deps.db.select().from(merchants).where(eq(merchants.id, m!.id));
    expect(after).toMatchObject({ fee_rate_bp: 800, status: 'disabled' });
  });

  it('an unknown id says the merchant does not exist', async () => {
    render(<MerchantEditScreen route={routeOf('admin-merchant-edit')} params={{ id: '9999' }} />);
    await screen.findByText('商户不存在');
  });

  it('lists, searches and filters merchants, and enables a disabled one after a confirmation', async () => {
    render(<MerchantsScreen route={routeOf('admin-merchants')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('merchant-row')).toHaveLength(2));
    fireEvent.change(screen.getByLabelText('状态'), { target: { value: 'disabled' } });
    await waitFor(() => expect(screen.getAllByTestId('merchant-row')).toHaveLength(1));
    // Two changes while the first call is still out: the list answers the last one.
    fireEvent.change(screen.getByLabelText('状态'), { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('搜索商户'), { target: { value: 'nobody-here' } });
    await screen.findByText('没有符合条件的商户');
    fireEvent.change(screen.getByLabelText('搜索商户'), { target: { value: 'lake' } });
    await waitFor(() => expect(screen.getAllByTestId('merchant-row')).toHaveLength(1));
    const row = screen.getByTestId('merchant-row');
    expect(row.textContent).toContain('已停用');
    expect(row.textContent).toContain('费率 8.00%');
    fireEvent.click(within(row).getByRole('button', { name: '启用' }));
    await screen.findByText('重新启用「湖畔洗衣」？');
    const dialog = screen.getByText('重新启用「湖畔洗衣」？').closest('dialog')!;
    fireEvent.click(within(dialog).getByRole('button', { name: '启用' }));
    await screen.findByText('已重新启用');
    const [m] = await t.deps.db.select().from(merchants).where(eq(merchants.name, '湖畔洗衣'));
    expect(m!.status).toBe('active');
  });
});
