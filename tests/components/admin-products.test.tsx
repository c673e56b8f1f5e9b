// @vitest-environment node
import './user-dom';
/**
 * `/admin/products` rendered against the real server in process (real app, real database, a real admin token):
 * the list, the form's validation with the shared schema before any request, a saved model appearing in the list
 * and the database, the dirty-leave warning, and the server's 409 for a model in use shown to the admin.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { products } from '../../server/db/schema';
import { forgetMe } from '../../src/app/staff-features';
import type { LoginResponse } from '../../src/domain/api';
import { ROUTES } from '../../src/domain/routes';
import { configureHttp, resetHttp } from '../../src/http/client';
import ProductsScreen from '../../src/screens/admin/products';
import { createTestApp, postJson, type TestApp } from '../server/test-app';

let t: TestApp;
const route = ROUTES.find((r) => r.id === 'admin-products')!;
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

afterAll(async () => {
  cleanup();
  resetHttp();
  forgetMe();
  localStorage.clear();
  await t?.close();
});

describe('/admin/products screen', () => {
  it('lists, validates before sending, saves, warns before leaving, and shows the 409 for a model in use', async () => {
    render(<ProductsScreen route={route} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('product-row')).toHaveLength(2));

    fireEvent.click(screen.getByRole('button', { name: '新增' }));
    requests = [];
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await screen.findByText('请输入型号名称');
    expect(requests.filter((r) => r.startsWith('POST'))).toEqual([]);

    fireEvent.change(screen.getByLabelText('型号名称', { selector: 'input:not([type=search])' }), {
      target: { value: '滚筒洗衣机 X2' },
    });
    fireEvent.change(screen.getByLabelText('类别'), { target: { value: 'washer' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.getAllByTestId('product-row')).toHaveLength(3));
    const [row] = await t.deps.db.select().from(products).where(eq(products.name, '滚筒洗衣机 X2'));
    expect(row).toMatchObject({ category: 'washer', status: 'active' });

    // Edit and leave with a change: asked first; cancelling the warning keeps the form.
    fireEvent.click(screen.getByRole('button', { name: /滚筒洗衣机 X2/ }));
    fireEvent.change(screen.getByLabelText('说明'), { target: { value: '12 公斤' } });
    fireEvent.click(screen.getAllByRole('button', { name: '取消' })[0]!);
    await screen.findByText('放弃未保存的修改？');
    fireEvent.click(screen.getByRole('button', { name: '放弃修改' }));
    await waitFor(() => expect(screen.queryByText('放弃未保存的修改？')).toBeNull());

    // Deleting the charger model (4 devices) is refused by the server; its message is shown.
    const charger = screen.getAllByTestId('product-row').find((r) => r.textContent?.includes('4 台设备'))!;
    fireEvent.click(within(charger).getByRole('button', { name: '删除' }));
    fireEvent.click(await screen.findByRole('button', { name: '确定' }));
    await screen.findByText(/台设备在用，不能删除/);
    expect(await t.deps.db.select().from(products).where(eq(products.id, 1))).toHaveLength(1);
  });
});
