// @vitest-environment node
import './user-dom';
/**
 * The admin's merchant picker on the people screens, against the real server in process: on sub-users the admin
 * chooses the merchant a new account belongs to (refused until chosen); on profit sharing the admin chooses the
 * merchant first and the new rule offers only that merchant's venues and partners; on withdrawals the admin filters
 * the requests by merchant. One picker component (`AdminMerchantFilter`) everywhere.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, merchants } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import WithdrawalsScreen from '../../src/screens/merchant/withdrawals';
import ProfitSharingScreen from '../../src/screens/sub-users/profit-sharing';
import SubUsersScreen from '../../src/screens/sub-users/sub-users';
import { as, createOtherMerchant, type OtherMerchant } from '../server/people/fixtures';
import { accountByUsername, credit } from '../server/withdrawals/wallet-fixtures';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
let other: OtherMerchant;
const routeOf = (id: string) => ROUTES.find((r) => r.id === id)!;
const optionsOf = (select: HTMLElement) =>
  [...(select as HTMLSelectElement).options].map((o) => o.textContent ?? '');

beforeAll(async () => {
  h = await startStaffHarness('admin');
  other = await createOtherMerchant(h.t.deps.db, 'picker');
  // One request from each merchant's side: the demo partner's and the other merchant's owner's.
  for (const username of ['partner', 'picker']) {
    const account = await accountByUsername(h.t.deps.db, username);
    await credit(h.t.deps.db, account, 1000);
    const token = await h.t.login(username);
    const res = await h.t.app.request(
      '/backend/wallet/withdrawals',
      as(token, 'POST', { amount_fen: 500 }, { 'Idempotency-Key': `picker-${username}` }),
    );
    expect(res.status).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  cleanup();
  await h?.close();
});

const merchantName = async (id: number) =>
  (await h.t.deps.db.select().from(merchants).where(eq(merchants.id, id)))[0]!.name;

describe("the admin's merchant picker", () => {
  it('sub-users: a new account is refused until a merchant is chosen, then belongs to it', async () => {
    render(<SubUsersScreen route={routeOf('sub-users')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('sub-user-row').length).toBeGreaterThan(2));
    fireEvent.click(screen.getByRole('button', { name: '新增' }));
    const picker = await screen.findByLabelText('所属商户');
    const name = await merchantName(other.merchant_id);
    await waitFor(() => expect(optionsOf(picker)).toContain(name));
    expect(optionsOf(picker)[0]).toBe('请选择商户');
    fireEvent.change(screen.getByLabelText('登录用户名'), { target: { value: 'picked-clerk' } });
    fireEvent.change(screen.getByLabelText('姓名'), { target: { value: '小周' } });
    fireEvent.change(screen.getByLabelText('初始密码'), { target: { value: 'clerk1234' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await screen.findByText('请选择商户', { selector: ':not(option)' });
    fireEvent.change(picker, { target: { value: String(other.merchant_id) } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(async () => {
      const [a] = await h.t.deps.db.select().from(accounts).where(eq(accounts.username, 'picked-clerk'));
      expect(a?.merchant_id).toBe(other.merchant_id);
    });
    cleanup();
  });

  it("profit sharing: add waits for a merchant; the form offers only that merchant's venues and partners", async () => {
    render(<ProfitSharingScreen route={routeOf('profit-sharing')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('share-rule-row')).toHaveLength(2));
    // All merchants' rules until one is chosen: each row names its merchant.
    expect(screen.getAllByTestId('share-rule-row')[0]!.textContent).toContain('星河共享自助');
    const add = screen.getByRole('button', { name: '新增规则' }) as HTMLButtonElement;
    expect(add.disabled).toBe(true);
    const picker = screen.getByLabelText('商户');
    await waitFor(() => expect(optionsOf(picker).length).toBeGreaterThan(2));
    fireEvent.change(picker, { target: { value: String(other.merchant_id) } });
    await waitFor(() => expect(screen.getAllByTestId('share-rule-row')).toHaveLength(1));
    expect(screen.getByTestId('share-rule-row').textContent).toContain('别家场地');
    await waitFor(() => expect(add.disabled).toBe(false));
    fireEvent.click(add);
    const venue = await screen.findByLabelText('场地');
    await waitFor(() => expect(optionsOf(venue).length).toBe(2));
    expect(optionsOf(venue)[1]).toContain('别家场地');
    expect(optionsOf(screen.getByLabelText('合伙人'))).toEqual([
      '请选择',
      expect.stringContaining('partner'),
    ]);
    cleanup();
  });

  it('withdrawals: filters the requests by merchant', async () => {
    render(<WithdrawalsScreen route={routeOf('merchant-withdrawals')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('withdrawal-row')).toHaveLength(2));
    const toolbar = screen.getByLabelText('状态').parentElement!;
    const picker = within(toolbar).getByLabelText('商户');
    await waitFor(() => expect(optionsOf(picker).length).toBeGreaterThan(2));
    fireEvent.change(picker, { target: { value: String(other.merchant_id) } });
    await waitFor(() => expect(screen.getAllByTestId('withdrawal-row')).toHaveLength(1));
    expect(
      h.requests.some(
        (r) => r.includes(`/merchant/withdrawals?`) && r.includes(`merchant_id=${other.merchant_id}`),
      ),
    ).toBe(true);
    fireEvent.change(picker, { target: { value: '' } });
    await waitFor(() => expect(screen.getAllByTestId('withdrawal-row')).toHaveLength(2));
  });
});
