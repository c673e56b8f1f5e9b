// @vitest-environment node
import './user-dom';
/**
 * `/merchant/members` as the platform admin, against the real server in process: one member with a wallet at two
 * merchants is two rows, each naming its merchant; opening one names that merchant on the member's page, and the
 * histories there are that merchant's only (the other merchant's entries stay out).
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import MembersScreen from '../../src/screens/merchant/members';
import { addOtherMerchant, type OtherMerchant } from '../server/venues/catalogue-fixtures';
import { createMember, fundMember } from '../server/device-sessions/devices-fixtures';
import { bonusCredit } from '../server/withdrawals/wallet-fixtures';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
let b: OtherMerchant;
const route = ROUTES.find((r) => r.id === 'merchant-members')!;

beforeAll(async () => {
  h = await startStaffHarness('admin');
  b = await addOtherMerchant(h.t, 'merchant-b');
  const id = await createMember(h.t.deps.db);
  await h.t.deps.db.update(members).set({ nickname: '两店会员' }).where(eq(members.id, id));
  await fundMember(h.t.deps.db, id, 1, 1000);
  await bonusCredit(h.t.deps.db, id, 1, 100);
  await fundMember(h.t.deps.db, id, b.merchant_id, 2000);
}, 60_000);
afterAll(async () => {
  cleanup();
  await h?.close();
});

describe('/merchant/members as the admin', () => {
  it("names the merchant on each member row and on the member's page, whose records are that merchant's", async () => {
    render(<MembersScreen route={route} params={{}} />);
    fireEvent.change(await screen.findByLabelText('搜索会员'), { target: { value: '两店会员' } });
    await waitFor(() => expect(screen.getAllByTestId('member-row')).toHaveLength(2));
    const rows = screen.getAllByTestId('member-row');
    expect(rows.map((r) => r.textContent?.includes('星河共享自助'))).toContain(true);
    const rowB = rows.find((r) => r.textContent?.includes('merchant-b 商户'))!;
    expect(rowB).toBeTruthy();

    fireEvent.click(rowB);
    const named = await screen.findByTestId('member-merchant');
    expect(named.textContent).toContain('merchant-b 商户');
    expect(screen.getByText('两店会员 · merchant-b 商户')).toBeTruthy();
    // Merchant B's wallet has the one funding entry; merchant 1's two entries are not here.
    await waitFor(() => expect(screen.getAllByTestId('member-history-row')).toHaveLength(1));
    expect(
      within(screen.getByTestId('member-history-row')).getByText('20.00', { exact: false }),
    ).toBeTruthy();
  });
});
