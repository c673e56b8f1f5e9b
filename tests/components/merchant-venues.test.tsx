// @vitest-environment node
import './user-dom';
/**
 * `/merchant/venues` rendered against the real server in process (real app, real database, the demo merchant's
 * token): the venue list, adding a venue with the shared schema's validation before any request, a venue's page
 * (kept in the address, so a reload stays there), and its prices: add with the price typed in yuan and sent as fen,
 * deactivate, move, delete with a confirmation, and the server's refusal for a price that orders refer to.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orders, service_prices, venues } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import VenuesScreen from '../../src/screens/merchant/venues';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
const route = ROUTES.find((r) => r.id === 'merchant-venues')!;

beforeAll(async () => {
  h = await startStaffHarness('merchant');
}, 60_000);
afterAll(async () => {
  cleanup();
  await h?.close();
});

const prices = (venueId: number) =>
  h.t.deps.db
    .select()
    .from(service_prices)
    .where(eq(service_prices.venue_id, venueId))
    .orderBy(asc(service_prices.sort), asc(service_prices.price_fen), asc(service_prices.id));
const posts = () => h.requests.filter((r) => !r.startsWith('GET'));

describe('/merchant/venues screen', () => {
  it('lists the venues, validates a new one before sending, and adds it', async () => {
    window.history.pushState(null, '', '/merchant/venues');
    render(<VenuesScreen route={route} params={{}} />);
    await waitFor(() => expect(screen.getAllByTestId('venue-row')).toHaveLength(2));
    expect(screen.getAllByTestId('venue-row')[0]!.textContent).toContain('3 台设备 · 3 个价格启用');

    fireEvent.click(screen.getByRole('button', { name: '新增' }));
    h.requests.length = 0;
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await screen.findByText('请输入场地名称');
    expect(posts()).toEqual([]);
    fireEvent.change(screen.getByLabelText('场地名称'), { target: { value: '西溪店' } });
    fireEvent.change(screen.getByLabelText('地址'), { target: { value: '杭州市西溪路 1 号' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.getAllByTestId('venue-row')).toHaveLength(3));
    expect(screen.getAllByTestId('venue-row')[2]!.textContent).toContain('用户无法支付');
    const [row] = await h.t.deps.db.select().from(venues).where(eq(venues.name, '西溪店'));
    expect(row).toMatchObject({ address: '杭州市西溪路 1 号' });
    cleanup();
  });

  it("opens a venue's page and edits its prices: yuan in, fen sent; deactivate, move, delete", async () => {
    window.history.pushState(null, '', '/merchant/venues');
    render(<VenuesScreen route={route} params={{}} />);
    const first = await screen.findByRole('button', { name: /星河广场店/ });
    fireEvent.click(first);
    await waitFor(() => expect(window.location.search).toBe('?venue=1'));
    await waitFor(() => expect(screen.getAllByTestId('price-row')).toHaveLength(3));
    expect(screen.getByTestId('venue-card').textContent).toContain('3/3 个价格启用');

    // Add: a bad amount is caught by the shared schema before any request.
    fireEvent.click(screen.getByRole('button', { name: '添加价格' }));
    fireEvent.change(screen.getByLabelText('价格名称'), { target: { value: '90 分钟' } });
    fireEvent.change(screen.getByLabelText('时长（分钟）'), { target: { value: '90' } });
    fireEvent.change(screen.getByLabelText('价格（元）'), { target: { value: '4.555' } });
    h.requests.length = 0;
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await screen.findByText(/价格格式不对/);
    expect(posts()).toEqual([]);
    fireEvent.change(screen.getByLabelText('价格（元）'), { target: { value: '4.5' } });
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.getAllByTestId('price-row')).toHaveLength(4));
    let rows = await prices(1);
    expect(rows.map((p) => [p.name, p.minutes, p.price_fen])).toContainEqual(['90 分钟', 90, 450]);
    expect(screen.getAllByTestId('price-row')[3]!.textContent).toContain('¥4.50');

    // Deactivate the first: stored, and gone from what end users see.
    const firstRow = screen.getAllByTestId('price-row')[0]!;
    fireEvent.click(within(firstRow).getByRole('checkbox'));
    await waitFor(async () => expect((await prices(1))[0]!.active).toBe(false));
    const seen = await h.t.json<{ items: { id: number }[] }>('/backend/api/venue-service-prices?venue_id=1');
    expect(seen.body.items.map((p) => p.id)).not.toContain(rows[0]!.id);

    // Move the new price up one place.
    const before = (await prices(1)).map((p) => p.id);
    fireEvent.click(within(screen.getAllByTestId('price-row')[3]!).getByRole('button', { name: '上移' }));
    await waitFor(async () =>
      expect((await prices(1)).map((p) => p.id)).toEqual([before[0], before[1], before[3], before[2]]),
    );

    // Delete with a confirmation.
    const added = rows.find((p) => p.name === '90 分钟')!;
    await waitFor(() => expect(screen.getAllByTestId('price-row')[2]!.textContent).toContain('90 分钟'));
    fireEvent.click(within(screen.getAllByTestId('price-row')[2]!).getByRole('button', { name: '删除' }));
    await screen.findByText('删除价格？');
    fireEvent.click(
      within(screen.getByText('删除价格？').closest('dialog')!).getByRole('button', { name: '删除' }),
    );
    await waitFor(async () =>
      expect(await h.t.deps.db.select().from(service_prices).where(eq(service_prices.id, added.id))).toEqual(
        [],
      ),
    );
    rows = await prices(1);
    expect(rows).toHaveLength(3);
    cleanup();
  });

  it('a reload on a venue page stays there; a price that orders refer to is not deleted and the reason is shown', async () => {
    const [price] = await prices(2);
    const [v] = await h.t.deps.db.select().from(venues).where(eq(venues.id, 2));
    await h.t.deps.db.insert(orders).values({
      order_no: 'C-TEST-VENUES-1',
      kind: 'consume',
      method: 'wechat',
      status: 'closed',
      merchant_id: v!.merchant_id,
      venue_id: 2,
      price_id: price!.id,
      amount_fen: price!.price_fen,
      minutes: price!.minutes,
    });
    window.history.pushState(null, '', '/merchant/venues?venue=2');
    render(<VenuesScreen route={route} params={{}} />);
    await waitFor(() => expect(screen.getByTestId('venue-card').textContent).toContain('滨江社区店'));
    await waitFor(() => expect(screen.getAllByTestId('price-row')[0]!.textContent).toContain('1 笔订单'));
    fireEvent.click(within(screen.getAllByTestId('price-row')[0]!).getByRole('button', { name: '删除' }));
    await screen.findByText('删除价格？');
    const dialog = screen.getByText('删除价格？').closest('dialog')!;
    fireEvent.click(within(dialog).getByRole('button', { name: '删除' }));
    await screen.findByText(/笔订单，不能删除/);
    const still = await h.t.deps.db
      .select()
      .from(service_prices)
      .where(and(eq(service_prices.id, price!.id), eq(service_prices.venue_id, 2)));
    expect(still).toHaveLength(1);

    // Back to the list.
    await act(async () => fireEvent.click(screen.getByRole('button', { name: '‹ 全部场地' })));
    await waitFor(() => expect(screen.getAllByTestId('venue-row').length).toBeGreaterThan(1));
    expect(window.location.search).toBe('');
  });
});
