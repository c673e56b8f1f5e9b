// @vitest-environment node
import './user-dom';
/**
 * `/merchant/devices` rendered against the real server in process (real app, real database, the demo merchant's
 * token): the list with what runs now, a batch added through the form (validated before sending), its label sheet
 * with one QR per device, a device moved with the label warning and the new code, and disabling with a confirmation.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import DevicesScreen from '../../src/screens/merchant/devices';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
const route = ROUTES.find((r) => r.id === 'merchant-devices')!;

beforeAll(async () => {
  h = await startStaffHarness('merchant');
}, 60_000);
afterAll(async () => {
  cleanup();
  await h?.close();
});

describe('/merchant/devices screen', () => {
  it(
    'adds a batch, prints its labels, moves a device with the label warning, disables one',
    { timeout: 30_000 },
    async () => {
      render(<DevicesScreen route={route} params={{}} />);
      await waitFor(() => expect(screen.getAllByTestId('device-row')).toHaveLength(6));

      fireEvent.click(screen.getByRole('button', { name: '批量添加' }));
      const prefix = await screen.findByLabelText('名称前缀');
      fireEvent.change(screen.getByLabelText('数量'), { target: { value: '0' } });
      h.requests.length = 0;
      fireEvent.click(screen.getByRole('button', { name: '确认添加' }));
      await screen.findByText('请输入名称前缀');
      expect(screen.getByText('数量至少 1 台')).toBeTruthy();
      expect(h.requests.filter((r) => r.startsWith('POST'))).toEqual([]);
      fireEvent.change(prefix, { target: { value: '新充电桩 ' } });
      fireEvent.change(screen.getByLabelText('数量'), { target: { value: '3' } });
      fireEvent.click(screen.getByRole('button', { name: '确认添加' }));
      await screen.findByText('已添加 3 台，已选中，可打印标签');
      await waitFor(() => expect(screen.getAllByTestId('device-row')).toHaveLength(9));
      const added = await h.t.deps.db.select().from(devices).where(eq(devices.venue_id, 1));
      expect(added.filter((d) => d.name.startsWith('新充电桩 ')).map((d) => d.serial)).toEqual([
        'SG001-00001',
        'SG001-00002',
        'SG001-00003',
      ]);

      fireEvent.click(screen.getByRole('button', { name: '打印所选标签（3）' }));
      const sheet = await screen.findByTestId('label-sheet');
      expect(within(sheet).getAllByTestId('device-label')).toHaveLength(3);
      await waitFor(() => expect(sheet.querySelectorAll('svg')).toHaveLength(3));
      expect(within(sheet).getAllByText('微信扫码使用')).toHaveLength(3);
      expect(sheet.textContent).toContain('编号 SG001-00001');
      fireEvent.click(within(sheet).getByRole('button', { name: '返回' }));
      await waitFor(() => expect(screen.queryByTestId('label-sheet')).toBeNull());

      // Move the first demo device: the form warns about the label, then shows the new code.
      const first = screen.getAllByTestId('device-row')[0]!;
      fireEvent.click(within(first).getByRole('button', { name: '移动' }));
      expect(await screen.findByText(/已贴的旧标签将失效/)).toBeTruthy();
      fireEvent.change(screen.getByLabelText('新场地'), { target: { value: '2' } });
      fireEvent.click(screen.getByRole('button', { name: '确认移动' }));
      await screen.findByText(/二维码已更新/);
      expect(screen.getByTestId('pay-url').textContent).toMatch(/device_id=1&venue_id=2$/);
      const [moved] = await h.t.deps.db.select().from(devices).where(eq(devices.id, 1));
      expect(moved!.venue_id).toBe(2);
      fireEvent.click(screen.getByRole('button', { name: '关闭' }));

      // Disable asks first. (The list reloads after the move with its own request: wait for its rows.)
      const row = (await screen.findAllByTestId('device-row')).find((r) =>
        r.textContent?.includes('广场 2 号充电桩'),
      )!;
      fireEvent.click(within(row).getByRole('button', { name: '停用' }));
      fireEvent.click(await screen.findByRole('button', { name: '确定' }));
      // '已停用' is also a status filter's option, so the toast's text alone does not say the answer came.
      await waitFor(async () => {
        const [off] = await h.t.deps.db.select().from(devices).where(eq(devices.id, 2));
        expect(off!.status).toBe('disabled');
      });
    },
  );
});
