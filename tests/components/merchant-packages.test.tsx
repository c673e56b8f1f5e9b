// @vitest-environment node
import './user-dom';
/**
 * `/merchant/packages` rendered against the real server in process (real app, real database, the demo merchant's
 * token): the list, amounts typed in yuan validated by the shared schema before any request and sent as fen, an
 * edit showing the stored amounts in yuan, deactivate, move, and delete with a confirmation.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import PackagesScreen from '../../src/screens/merchant/packages';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
const route = ROUTES.find((r) => r.id === 'merchant-packages')!;

beforeAll(async () => {
  h = await startStaffHarness('merchant');
}, 60_000);
afterAll(async () => {
  cleanup();
  await h?.close();
});

const stored = () =>
  h.t.deps.db.select().from(packages).orderBy(asc(packages.sort), asc(packages.pay_fen), asc(packages.id));
const rows = () => screen.getAllByTestId('package-row');
const writes = () => h.requests.filter((r) => !r.startsWith('GET'));

describe('/merchant/packages screen', () => {
  it('adds a package typed in yuan (checked before sending), edits, deactivates, moves and deletes', async () => {
    render(<PackagesScreen route={route} params={{}} />);
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(rows()[0]!.textContent).toContain('充 ¥50.00 送 ¥5.00');

    fireEvent.click(screen.getByRole('button', { name: '新增' }));
    fireEvent.change(screen.getByLabelText('套餐名称'), { target: { value: '充 30 送 2.5' } });
    fireEvent.change(screen.getByLabelText('充值金额（元）'), { target: { value: '0' } });
    fireEvent.change(screen.getByLabelText('赠送金额（元）'), { target: { value: '-1' } });
    h.requests.length = 0;
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await screen.findByText('充值金额必须大于 0');
    await screen.findByText(/赠送金额格式不对/);
    expect(writes()).toEqual([]);
    fireEvent.change(screen.getByLabelText('充值金额（元）'), { target: { value: '30' } });
    fireEvent.change(screen.getByLabelText('赠送金额（元）'), { target: { value: '2.5' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect((await stored()).map((p) => [p.name, p.pay_fen, p.bonus_fen])).toContainEqual([
      '充 30 送 2.5',
      3000,
      250,
    ]);

    // Editing shows the stored amounts in yuan.
    fireEvent.click(within(rows()[1]!).getByRole('button', { name: /充 100 送 15/ }));
    expect((screen.getByLabelText('充值金额（元）') as HTMLInputElement).value).toBe('100.00');
    expect((screen.getByLabelText('赠送金额（元）') as HTMLInputElement).value).toBe('15.00');
    fireEvent.change(screen.getByLabelText('赠送金额（元）'), { target: { value: '20' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(rows()[1]!.textContent).toContain('送 ¥20.00'));

    // Deactivate the first package.
    fireEvent.click(within(rows()[0]!).getByRole('checkbox'));
    await waitFor(async () => expect((await stored())[0]!.active).toBe(false));
    await waitFor(() => expect(rows()[0]!.textContent).toContain('已停用'));

    // Move the new package to the top.
    const ids = (await stored()).map((p) => p.id);
    fireEvent.click(within(rows()[2]!).getByRole('button', { name: '上移' }));
    await waitFor(async () => expect((await stored()).map((p) => p.id)).toEqual([ids[0], ids[2], ids[1]]));
    await waitFor(() => expect(rows()[1]!.textContent).toContain('充 30 送 2.5'));
    fireEvent.click(within(rows()[1]!).getByRole('button', { name: '上移' }));
    await waitFor(async () => expect((await stored()).map((p) => p.id)).toEqual([ids[2], ids[0], ids[1]]));

    // Delete with a confirmation; cancelling keeps it.
    await waitFor(() => expect(rows()[0]!.textContent).toContain('充 30 送 2.5'));
    fireEvent.click(within(rows()[0]!).getByRole('button', { name: '删除' }));
    const dialog = (await screen.findByText('删除套餐？')).closest('dialog')!;
    fireEvent.click(within(dialog).getByRole('button', { name: '取消' }));
    expect(await stored()).toHaveLength(3);
    fireEvent.click(within(rows()[0]!).getByRole('button', { name: '删除' }));
    const again = (await screen.findByText('删除套餐？')).closest('dialog')!;
    fireEvent.click(within(again).getByRole('button', { name: '删除' }));
    await waitFor(async () =>
      expect(await h.t.deps.db.select().from(packages).where(eq(packages.id, ids[2]!))).toEqual([]),
    );
    await waitFor(() => expect(rows()).toHaveLength(2));
  });
});
