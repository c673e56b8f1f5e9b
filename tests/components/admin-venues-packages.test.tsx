// @vitest-environment node
import './user-dom';
/**
 * `/merchant/venues`, `/merchant/packages` and `/merchant/devices` as the platform admin, against the real server in
 * process: every merchant's rows, the one merchant filter (`AdminMerchantFilter`) narrowing the list, and adding
 * offered only once a merchant is chosen (the new row is created for that merchant).
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices, packages, venues } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import DevicesScreen from '../../src/screens/merchant/devices';
import PackagesScreen from '../../src/screens/merchant/packages';
import VenuesScreen from '../../src/screens/merchant/venues';
import { addOtherMerchant, type OtherMerchant } from '../server/venues/catalogue-fixtures';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
let b: OtherMerchant;
const routeOf = (id: string) => ROUTES.find((r) => r.id === id)!;

beforeAll(async () => {
  h = await startStaffHarness('admin');
  b = await addOtherMerchant(h.t, 'merchant-b');
}, 60_000);
afterAll(async () => {
  cleanup();
  await h?.close();
});

const chooseMerchant = async (name: string) => {
  const select = screen.getByLabelText('商户') as HTMLSelectElement;
  await waitFor(() => expect(select.disabled).toBe(false));
  const option = [...select.options].find((o) => o.textContent === name)!;
  fireEvent.change(select, { target: { value: option.value } });
};

describe('the admin on the catalogue screens', () => {
  it('venues: all merchants, filtered by merchant; a new venue goes to the chosen merchant', async () => {
    window.history.pushState(null, '', '/merchant/venues');
    render(<VenuesScreen route={routeOf('merchant-venues')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('venue-row')).toHaveLength(3));
    expect(screen.getAllByTestId('venue-row')[2]!.textContent).toContain('merchant-b 商户');
    expect((screen.getByRole('button', { name: '新增' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('新增场地前，请先选择所属商户。')).toBeTruthy();
    await chooseMerchant('merchant-b 商户');
    await waitFor(() => expect(screen.getAllByTestId('venue-row')).toHaveLength(1));
    fireEvent.click(screen.getByRole('button', { name: '新增' }));
    fireEvent.change(screen.getByLabelText('场地名称'), { target: { value: 'B 新场地' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.getAllByTestId('venue-row')).toHaveLength(2));
    const [row] = await h.t.deps.db.select().from(venues).where(eq(venues.name, 'B 新场地'));
    expect(row!.merchant_id).toBe(b.merchant_id);
    cleanup();
  });

  it('packages: all merchants, filtered by merchant; a new package goes to the chosen merchant', async () => {
    render(<PackagesScreen route={routeOf('merchant-packages')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('package-row')).toHaveLength(3));
    // Rows of several merchants cannot be reordered together.
    expect(screen.queryByRole('button', { name: '上移' })).toBeNull();
    expect((screen.getByRole('button', { name: '新增' }) as HTMLButtonElement).disabled).toBe(true);
    await chooseMerchant('merchant-b 商户');
    await waitFor(() => expect(screen.getAllByTestId('package-row')).toHaveLength(1));
    fireEvent.click(screen.getByRole('button', { name: '新增' }));
    fireEvent.change(screen.getByLabelText('套餐名称'), { target: { value: 'B 充 50' } });
    fireEvent.change(screen.getByLabelText('充值金额（元）'), { target: { value: '50' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.getAllByTestId('package-row')).toHaveLength(2));
    const [row] = await h.t.deps.db.select().from(packages).where(eq(packages.name, 'B 充 50'));
    expect(row).toMatchObject({ merchant_id: b.merchant_id, pay_fen: 5000, bonus_fen: 0 });
    expect(screen.getAllByRole('button', { name: '上移' }).length).toBeGreaterThan(0);
  });

  it('devices: all merchants, filtered by merchant; added devices go to the chosen merchant and its venue', async () => {
    cleanup();
    render(<DevicesScreen route={routeOf('merchant-devices')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('device-row')).toHaveLength(6));
    // Every row names its merchant while the list holds several merchants' devices.
    expect(screen.getAllByTestId('device-row').every((r) => r.textContent?.includes('星河共享自助 · '))).toBe(
      true,
    );
    expect((screen.getByRole('button', { name: '批量添加' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('添加设备前，请先选择所属商户。')).toBeTruthy();
    await chooseMerchant('merchant-b 商户');
    await screen.findByText('暂无设备');
    const venueFilter = screen.getByLabelText('场地') as HTMLSelectElement;
    await waitFor(() =>
      expect([...venueFilter.options].map((o) => o.textContent)).toEqual(['全部场地', 'B 场地', 'B 新场地']),
    );
    await waitFor(() =>
      expect((screen.getByRole('button', { name: '批量添加' }) as HTMLButtonElement).disabled).toBe(false),
    );
    fireEvent.click(screen.getByRole('button', { name: '批量添加' }));
    fireEvent.change(await screen.findByLabelText('名称前缀'), { target: { value: 'B 桩 ' } });
    fireEvent.change(screen.getByLabelText('数量'), { target: { value: '2' } });
    fireEvent.click(screen.getByRole('button', { name: '确认添加' }));
    await waitFor(() => expect(screen.getAllByTestId('device-row')).toHaveLength(2));
    expect(screen.getAllByTestId('device-row')[0]!.textContent).toContain('merchant-b 商户 · B 场地');
    const added = await h.t.deps.db.select().from(devices).where(eq(devices.merchant_id, b.merchant_id));
    expect(added.map((d) => [d.name, d.venue_id])).toEqual([
      ['B 桩 1', b.venue_id],
      ['B 桩 2', b.venue_id],
    ]);
  });
});
