// @vitest-environment node
import './user-dom';
/**
 * `/sub-users/sub-users` and `/merchant/feedback` as the merchant, against the real server in process: an
 * employee added in the sheet can sign in; the inbox shows a member's feedback and sends the reply; a member's page
 * pages its histories.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bonus_credits, feedback, members } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import FeedbackInboxScreen from '../../src/screens/merchant/feedback';
import MembersScreen from '../../src/screens/merchant/members';
import ProfitSharingScreen from '../../src/screens/sub-users/profit-sharing';
import SubUsersScreen from '../../src/screens/sub-users/sub-users';
import { createMember, fundMember } from '../server/device-sessions/devices-fixtures';
import { bonusCredit } from '../server/withdrawals/wallet-fixtures';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
const routeOf = (id: string) => ROUTES.find((r) => r.id === id)!;

beforeAll(async () => {
  h = await startStaffHarness('merchant');
}, 60_000);
afterAll(async () => {
  cleanup();
  await h?.close();
});

describe('people screens', () => {
  it('sub-users: adds an employee who then signs in', async () => {
    render(<SubUsersScreen route={routeOf('sub-users')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('sub-user-row')).toHaveLength(2));
    fireEvent.click(screen.getByRole('button', { name: '新增' }));
    fireEvent.change(screen.getByLabelText('登录用户名'), { target: { value: 'clerk-ui' } });
    fireEvent.change(screen.getByLabelText('姓名'), { target: { value: '小李' } });
    fireEvent.change(screen.getByLabelText('初始密码'), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.getByText('密码至少 8 位')).toBeTruthy());
    fireEvent.change(screen.getByLabelText('初始密码'), { target: { value: 'clerk1234' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.getAllByTestId('sub-user-row')).toHaveLength(3));
    expect(await h.t.login('clerk-ui', 'clerk1234')).toBeTruthy();
    cleanup();
  });

  it('feedback: the open feedback is listed and the reply is sent', async () => {
    const [m] = await h.t.deps.db.insert(members).values({ openid: 'ui-fb', nickname: '小红' }).returning();
    const [f] = await h.t.deps.db
      .insert(feedback)
      .values({ member_id: m!.id, merchant_id: 1, device_id: 1, category: 'device', content: '插座没电' })
      .returning();
    render(<FeedbackInboxScreen route={routeOf('merchant-feedback')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('feedback-row')).toHaveLength(1));
    expect(screen.getByText('插座没电')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '回复' }));
    fireEvent.change(screen.getByLabelText('回复'), { target: { value: '已修好，请再试' } });
    fireEvent.click(screen.getByRole('button', { name: '发送回复' }));
    await waitFor(async () => {
      const [row] = await h.t.deps.db.select().from(feedback).where(eq(feedback.id, f!.id));
      expect(row!.reply).toBe('已修好，请再试');
    });
  });

  it('profit sharing: the rule and its history; a new ratio is saved and added to the history', async () => {
    cleanup();
    render(<ProfitSharingScreen route={routeOf('profit-sharing')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('share-rule-row')).toHaveLength(1));
    await waitFor(() => expect(screen.getAllByTestId('share-change-row')).toHaveLength(1));
    expect(screen.getByTestId('share-rule-row').textContent).toContain('20%');
    fireEvent.click(screen.getByText(/合伙人 · 李娜 · 20%/));
    fireEvent.change(screen.getByLabelText('分润比例（%）'), { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.getAllByTestId('share-change-row')).toHaveLength(2));
    expect(screen.getByTestId('share-rule-row').textContent).toContain('30%');
    expect(screen.getAllByTestId('share-change-row')[0]!.textContent).toContain('20% → 30%');
  });

  it('members: a bonus credit is confirmed, then sent once', async () => {
    cleanup();
    await fundMember(h.t.deps.db, await createMember(h.t.deps.db), 1, 1000);
    render(<MembersScreen route={routeOf('merchant-members')} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('member-row').length).toBeGreaterThan(0));
    fireEvent.click(screen.getAllByTestId('member-row')[0]!);
    await waitFor(() => expect(screen.getByLabelText('金额（元）')).toBeTruthy());
    fireEvent.change(screen.getByLabelText('金额（元）'), { target: { value: '5' } });
    fireEvent.change(screen.getByLabelText('原因'), { target: { value: '设备故障补偿' } });
    fireEvent.click(screen.getByRole('button', { name: '赠送' }));
    await waitFor(() => expect(screen.getByText('确认赠送？')).toBeTruthy());
    expect((await h.t.deps.db.select().from(bonus_credits)).length).toBe(0);
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(async () => {
      const rows = await h.t.deps.db.select().from(bonus_credits);
      expect(rows.map((r) => [r.amount_fen, r.note])).toEqual([[500, '设备故障补偿']]);
    });
  });

  it("members: a member's page pages its wallet entries and switches to orders and sessions", async () => {
    cleanup();
    const id = await createMember(h.t.deps.db);
    await h.t.deps.db.update(members).set({ nickname: '翻页会员' }).where(eq(members.id, id));
    await fundMember(h.t.deps.db, id, 1, 1000);
    for (let i = 0; i < 11; i++) await bonusCredit(h.t.deps.db, id, 1, 100 + i);
    render(<MembersScreen route={routeOf('merchant-members')} params={{}} />);
    fireEvent.change(await screen.findByLabelText('搜索会员'), { target: { value: '翻页会员' } });
    await waitFor(() => expect(screen.getAllByTestId('member-row')).toHaveLength(1));
    fireEvent.click(screen.getByTestId('member-row'));
    await waitFor(() => expect(screen.getAllByTestId('member-history-row')).toHaveLength(10));
    expect(screen.getByText('第 1 / 2 页，共 12 条')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '下一页' }));
    await waitFor(() => expect(screen.getAllByTestId('member-history-row')).toHaveLength(2));
    fireEvent.click(screen.getByRole('tab', { name: '订单' }));
    await waitFor(() => expect(screen.getAllByTestId('member-history-row')).toHaveLength(1));
    expect(screen.getByTestId('member-history-row').textContent).toContain('充值');
    fireEvent.click(screen.getByRole('tab', { name: '使用记录' }));
    await screen.findByText('暂无使用记录');
  });
});
