/**
 * A member's page, paged (`/backend/merchant/members/:id/entries | orders | sessions`), and the members list's paging,
 * against the real app and database: every row once across the pages, newest first, totals right; the balance
 * counts cash principal (paid at the counter) with online principal; another merchant's member answers 404 whatever
 * headers are forged; the admin must name the merchant; bad paging answers 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type {
  MemberOrder,
  MemberSession,
  MemberWalletEntry,
  MerchantMember,
} from '../../../src/domain/members.schema';
import { cashRecharge, type CashWorld } from '../money/cash-fixtures';
import { createMember, fundMember, payFromWallet } from '../device-sessions/devices-fixtures';
import { as, createOtherMerchant, FORGED, type OtherMerchant } from '../people/fixtures';
import { createTestApp, type TestApp } from '../test-app';

let t: TestApp;
let admin: string;
let merchant: string;
let other: OtherMerchant;
let member: number;
beforeAll(async () => {
  t = await createTestApp();
  other = await createOtherMerchant(t.deps.db);
  admin = await t.login('admin');
  merchant = await t.login('merchant');
  member = await createMember(t.deps.db);
  await fundMember(t.deps.db, member, 1, 5000);
  await cashRecharge(t.deps.db, { merchantId: 1 } as CashWorld, member, 1000);
  for (const device of [1, 2, 3, 4, 5]) await payFromWallet(t.deps.db, member, device, new Date());
});
afterAll(async () => t?.close());

/** Every page of one history, page_size 2, as `token`. */
async function allPages<T>(token: string, path: string): Promise<{ pages: Page<T>[]; items: T[] }> {
  const pages: Page<T>[] = [];
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await t.json<Page<T>>(`${path}${sep}page=${page}&page_size=2`, as(token));
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (page * 2 >= res.body.total) break;
  }
  return { pages, items: pages.flatMap((p) => p.items) };
}

describe("a member's page, paged", () => {
  it('entries: every wallet movement once across the pages, newest first', async () => {
    const base = `/backend/merchant/members/${member}/entries`;
    const { pages, items } = await allPages<MemberWalletEntry>(merchant, base);
    // Two recharges and five pays.
    expect(pages[0]!.total).toBe(7);
    expect(items).toHaveLength(7);
    expect(new Set(items.map((e) => e.id)).size).toBe(7);
    expect(items.map((e) => e.id)).toEqual([...items.map((e) => e.id)].sort((a, b) => b - a));
    expect(items.filter((e) => e.kind === 'consume')).toHaveLength(5);
  });

  it('orders and sessions page the same way', async () => {
    const orders = await allPages<MemberOrder>(merchant, `/backend/merchant/members/${member}/orders`);
    expect(orders.pages[0]!.total).toBe(7);
    expect(new Set(orders.items.map((o) => o.order_no)).size).toBe(7);
    expect(orders.items.filter((o) => o.kind === 'consume').map((o) => o.device_name)).toHaveLength(5);
    const sessions = await allPages<MemberSession>(merchant, `/backend/merchant/members/${member}/sessions`);
    expect(sessions.pages[0]!.total).toBe(5);
    expect(sessions.pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
  });

  it('the balance counts cash and online principal', async () => {
    const payer = await createMember(t.deps.db);
    await fundMember(t.deps.db, payer, 1, 300);
    await cashRecharge(t.deps.db, { merchantId: 1 } as CashWorld, payer, 800);
    const { body } = await t.json<Page<MerchantMember>>(`/backend/merchant/members?q=${payer}`, as(merchant));
    const m = body.items.find((x) => x.id === payer)!;
    expect(m).toMatchObject({
      cash_principal_fen: 800,
      principal_fen: 1100,
      bonus_fen: 0,
      balance_fen: 1100,
    });
  });

  it("another merchant's member answers 404, forged headers or not; the admin names the merchant", async () => {
    for (const list of ['entries', 'orders', 'sessions']) {
      const path = `/backend/merchant/members/${other.member_id}/${list}`;
      expect((await t.json(path, as(merchant))).status).toBe(404);
      expect((await t.json(path, as(merchant, 'GET', undefined, FORGED))).status).toBe(404);
      const asAdmin = await t.json<{ code: string }>(path, as(admin));
      expect(asAdmin.status).toBe(400);
      const named = await t.json<Page<unknown>>(`${path}?merchant_id=${other.merchant_id}`, as(admin));
      expect(named.status).toBe(200);
      expect(named.body.total).toBeGreaterThan(list === 'sessions' ? -1 : 0);
    }
  });

  it('bad paging answers 4xx', async () => {
    for (const q of ['page=0', 'page_size=1000', 'page=x', 'merchant_id=0']) {
      const res = await t.json(`/backend/merchant/members/${member}/orders?${q}`, as(merchant));
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });
});

describe('the members list, paged', () => {
  it('every member once across the pages; search narrows and pages too', async () => {
    for (let i = 0; i < 4; i++) await fundMember(t.deps.db, await createMember(t.deps.db), 1, 100);
    const { pages, items } = await allPages<MerchantMember>(merchant, '/backend/merchant/members');
    expect(items).toHaveLength(pages[0]!.total);
    expect(pages[0]!.total).toBeGreaterThanOrEqual(5);
    expect(new Set(items.map((m) => m.id)).size).toBe(items.length);
    expect(items.every((m) => m.merchant_id === 1)).toBe(true);
    const found = await t.json<Page<MerchantMember>>(
      `/backend/merchant/members?q=${member}&page=1&page_size=2`,
      as(merchant),
    );
    expect(found.body.items.map((m) => m.id)).toContain(member);
  });
});
