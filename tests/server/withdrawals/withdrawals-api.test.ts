/**
 * The wallet and withdrawals through the HTTP API on the real app and database: balances and entries, a request
 * that freezes at once (at least 1 yuan, at most what is available, Idempotency-Key), every lifecycle move and
 * every illegal one (409 or 403, nothing changed), who and when of each change, audit rows, scoping between two
 * merchants (404), forged headers, and the ledger invariants after it all.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { WalletView, Withdrawal } from '../../../src/domain/wallet.schema';
import {
  audit_log,
  device_sessions,
  ledger_entries,
  wallets,
  withdrawal_events,
  withdrawals,
} from '../../../server/db/schema';
import { refundOrder } from '../../../server/services/orders';
import { assertLedgerInvariants } from '../money/invariants';
import { settleWechatRefunds } from '../money/refund-fixtures';
import { bearer, createTestApp, postJson, type TestApp } from '../test-app';
import { accountByUsername, createMerchantWithStaff, credit, paidConsume } from './wallet-fixtures';
import { createMember } from '../device-sessions/devices-fixtures';

let t: TestApp;
const tok: Record<string, string> = {};
let other: Awaited<ReturnType<typeof createMerchantWithStaff>>;

beforeAll(async () => {
  t = await createTestApp();
  other = await createMerchantWithStaff(t.deps.db, '隔壁商户');
  for (const u of [
    'admin',
    'merchant',
    'partner',
    'employee',
    other.owner.username,
    other.partner.username,
  ]) {
    tok[u] = await t.login(u);
  }
});
afterAll(async () => t?.close());

const as = (token: string, init: RequestInit = {}, extra: Record<string, string> = {}): RequestInit => ({
  ...init,
  headers: {
    ...(init.headers as Record<string, string>),
    ...(bearer(token, extra).headers as Record<string, string>),
  },
});
const request = (who: string, amount_fen: unknown, key?: string) =>
  t.json<Withdrawal & { code?: string; details?: Record<string, unknown> }>(
    '/backend/wallet/withdrawals',
    as(tok[who]!, postJson({ amount_fen }, key ? { 'Idempotency-Key': key } : {})),
  );
const act = (
  who: string,
  id: number,
  action: string,
  body: unknown = {},
  extra: Record<string, string> = {},
) =>
  t.json<Withdrawal & { code?: string }>(
    `/backend/admin/withdrawals/${id}/${action}`,
    as(tok[who]!, postJson(body), extra),
  );
const wallet = (who: string, query = '') => t.json<WalletView>(`/backend/wallet${query}`, as(tok[who]!));

/** Everything a refused call must leave as it was. */
const snapshot = async () => ({
  withdrawals: await t.deps.db.select().from(withdrawals).orderBy(withdrawals.id),
  events: (await t.deps.db.select({ n: count() }).from(withdrawal_events))[0]!.n,
  entries: (await t.deps.db.select({ n: count() }).from(ledger_entries))[0]!.n,
  wallets: await t.deps.db.select().from(wallets).orderBy(wallets.id),
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});

describe('the wallet', () => {
  it("shows a partner's share credited by a member's payment, with the order on the entry", async () => {
    const member = await createMember(t.deps.db);
    await paidConsume(t.deps.db, { member_id: member, device_id: 1, method: 'wechat' });
    const { status, body } = await wallet('partner');
    expect(status).toBe(200);
    // 200 fen paid, 6% fee (12), 20% of the net 188 = 37.
    expect(body).toMatchObject({
      kind: 'partner',
      available_fen: 37,
      frozen_fen: 0,
      total_fen: 37,
      paid_out_fen: 0,
    });
    expect(body.total).toBe(1);
    expect(body.entries[0]).toMatchObject({
      kind: 'consume',
      label: '消费分账',
      amount_fen: 37,
      available_fen: 37,
    });
    expect(body.entries[0]!.order_no).toMatch(/^C/);
    const merchant = await wallet('merchant');
    expect(merchant.body).toMatchObject({ kind: 'merchant', available_fen: 151 });
  });

  it('pages the entries, and refuses bad paging', async () => {
    const p = await accountByUsername(t.deps.db, 'partner');
    for (let i = 0; i < 3; i++) await credit(t.deps.db, p, 1000);
    const page2 = await wallet('partner', '?page=2&page_size=2');
    expect(page2.body).toMatchObject({ page: 2, page_size: 2, total: 4 });
    expect(page2.body.entries).toHaveLength(2);
    expect((await wallet('partner', '?page=0')).status).toBe(400);
  });

  it('has no wallet for an employee (403) or the platform admin (403 NO_WALLET)', async () => {
    expect((await wallet('employee')).status).toBe(403);
    const admin = await t.json<{ code: string }>('/backend/wallet', as(tok.admin!));
    expect(admin).toMatchObject({ status: 403, body: { code: 'NO_WALLET' } });
    expect((await t.request('/backend/wallet')).status).toBe(401);
  });
});

describe('a withdrawal request', () => {
  it('freezes the amount at once, with a requested event and an audit row', async () => {
    const before = (await wallet('partner')).body;
    const res = await request('partner', 500, 'req-1');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      amount_fen: 500,
      status: 'requested',
      account: { username: 'partner' },
    });
    expect(res.body.events).toHaveLength(1);
    expect(res.body.events[0]).toMatchObject({ status: 'requested', actor: { name: '合伙人 · 李娜' } });
    const after = (await wallet('partner')).body;
    expect(after.available_fen).toBe(before.available_fen - 500);
    expect(after.frozen_fen).toBe(500);
    expect(after.total_fen).toBe(before.total_fen);
    expect(after.entries[0]).toMatchObject({
      kind: 'withdrawal_freeze',
      withdrawal_id: res.body.id,
      available_fen: -500,
      frozen_fen: 500,
      amount_fen: 0,
    });
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(eq(audit_log.action, 'withdrawals.request'));
    expect(audits.map((a) => a.entity_id)).toContain(String(res.body.id));
  });

  it('answers a repeat with the same Idempotency-Key with the first request, creating nothing', async () => {
    const first = await request('partner', 300, 'req-2');
    const s = await snapshot();
    const again = await request('partner', 300, 'req-2');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(await snapshot()).toEqual(s);
    const reused = await request('partner', 301, 'req-2');
    expect(reused).toMatchObject({ status: 409, body: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    expect((await request('partner', 300, 'bad key with spaces')).status).toBe(400);
    expect(await snapshot()).toEqual(s);
  });

  it('refuses under 1 yuan, above what is available, not whole fen, or with nothing available: nothing changed', async () => {
    const s = await snapshot();
    const available = (await wallet('partner')).body.available_fen;
    expect(await request('partner', 99)).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect((await request('partner', 150.5)).status).toBe(400);
    expect((await request('partner', '500')).status).toBe(400);
    expect((await request('partner', null)).status).toBe(400);
    expect(await request('partner', available + 1)).toMatchObject({
      status: 409,
      body: { code: 'INSUFFICIENT_BALANCE' },
    });
    expect(await request(other.partner.username, 100)).toMatchObject({
      status: 409,
      body: { code: 'NO_AVAILABLE_BALANCE' },
    });
    expect(await request('employee', 100)).toMatchObject({ status: 403 });
    expect(await snapshot()).toEqual(s);
  });

  it("lists the account's own requests on /wallet/withdrawals", async () => {
    const own = await t.json<Page<Withdrawal>>('/backend/wallet/withdrawals', as(tok.partner!));
    expect(own.status).toBe(200);
    expect(own.body.total).toBe(2);
    expect(own.body.items.every((w) => w.account.username === 'partner')).toBe(true);
  });
});

describe('the lifecycle through the API', () => {
  it('requested → approved → paid: each move kept with who and when, the money paid out', async () => {
    const merchant = await accountByUsername(t.deps.db, 'merchant');
    await credit(t.deps.db, merchant, 5000);
    const w = (await request('merchant', 2000, 'm-1')).body;
    const approved = await act('admin', w.id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('approved');
    const paid = await act('admin', w.id, 'pay', { reference: ' 银行流水 2026-001 ' });
    expect(paid.body).toMatchObject({ status: 'paid', reference: '银行流水 2026-001' });
    expect(paid.body.events.map((e) => [e.status, e.actor?.name])).toEqual([
      ['requested', '星河共享 · 陈老板'],
      ['approved', '平台管理员'],
      ['paid', '平台管理员'],
    ]);
    expect(paid.body.events[2]!.note).toBe('银行流水 2026-001');
    expect(paid.body.events.every((e) => !Number.isNaN(Date.parse(e.created_at)))).toBe(true);
    const view = (await wallet('merchant')).body;
    expect(view.frozen_fen).toBe(0);
    expect(view.paid_out_fen).toBe(2000);
    expect(view.entries[0]).toMatchObject({
      kind: 'withdrawal_payout',
      frozen_fen: -2000,
      amount_fen: -2000,
    });
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(eq(audit_log.entity_id, String(w.id)));
    expect(audits.map((a) => a.action).sort()).toEqual([
      'withdrawals.approve',
      'withdrawals.pay',
      'withdrawals.request',
    ]);
  });

  it('requested → rejected with a reason unfreezes the amount', async () => {
    const before = (await wallet('merchant')).body;
    const w = (await request('merchant', 1000)).body;
    expect((await act('admin', w.id, 'reject', { reason: '  ' })).status).toBe(400);
    const rejected = await act('admin', w.id, 'reject', { reason: '账户信息不符' });
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: '账户信息不符' });
    expect(rejected.body.events.at(-1)).toMatchObject({
      status: 'rejected',
      note: '账户信息不符',
      actor: { name: '平台管理员' },
    });
    const after = (await wallet('merchant')).body;
    expect(after.available_fen).toBe(before.available_fen);
    expect(after.frozen_fen).toBe(before.frozen_fen);
    expect(after.entries[0]).toMatchObject({
      kind: 'withdrawal_unfreeze',
      available_fen: 1000,
      frozen_fen: -1000,
    });
  });

  it('refuses every illegal move with 409 or 403 and changes nothing', async () => {
    const merchant = await accountByUsername(t.deps.db, 'merchant');
    await credit(t.deps.db, merchant, 3000);
    const requested = (await request('merchant', 100)).body;
    const approved = (await request('merchant', 100)).body;
    await act('admin', approved.id, 'approve');
    const rejected = (await request('merchant', 100)).body;
    await act('admin', rejected.id, 'reject', { reason: '重复申请' });
    const paid = (await request('merchant', 100)).body;
    await act('admin', paid.id, 'approve');
    await act('admin', paid.id, 'pay', { reference: 'R1' });

    const s = await snapshot();
    const cases: [string, number, string, unknown, number][] = [
      ['admin', requested.id, 'pay', { reference: 'X' }, 409],
      ['admin', approved.id, 'approve', {}, 409],
      ['admin', approved.id, 'reject', { reason: '晚了' }, 409],
      ['admin', rejected.id, 'approve', {}, 409],
      ['admin', rejected.id, 'pay', { reference: 'X' }, 409],
      ['admin', rejected.id, 'reject', { reason: '再驳回' }, 409],
      ['admin', paid.id, 'approve', {}, 409],
      ['admin', paid.id, 'pay', { reference: 'X' }, 409],
      ['admin', paid.id, 'reject', { reason: '撤回' }, 409],
      ['merchant', requested.id, 'approve', {}, 403],
      ['merchant', requested.id, 'reject', { reason: '自己驳回' }, 403],
      ['merchant', approved.id, 'pay', { reference: 'X' }, 403],
      ['partner', requested.id, 'approve', {}, 403],
      ['employee', requested.id, 'approve', {}, 403],
      ['admin', 999_999, 'approve', {}, 404],
      ['admin', requested.id, 'pay', {}, 400],
    ];
    for (const [who, id, action, body, status] of cases) {
      const res = await act(who, id, action, body);
      expect([who, action, id, res.status]).toEqual([who, action, id, status]);
      if (status === 409) expect(res.body.code).toBe('ILLEGAL_TRANSITION');
    }
    expect(
      (await t.request(`/backend/admin/withdrawals/abc/approve`, as(tok.admin!, postJson({})))).status,
    ).toBe(400);
    expect((await t.request(`/backend/admin/withdrawals/${requested.id}/approve`, postJson({}))).status).toBe(
      401,
    );
    expect(await snapshot()).toEqual(s);
    await assertLedgerInvariants(t.deps.db);
  });
});

describe('the share of a session still running', () => {
  it('is not withdrawable until the session ends, so its refund always finds the money', async () => {
    const member = await createMember(t.deps.db);
    const before = (await wallet('partner')).body;
    const orderId = await paidConsume(t.deps.db, {
      member_id: member,
      device_id: 3,
      method: 'wechat',
      running: true,
    });
    const during = (await wallet('partner')).body;
    expect(during.available_fen).toBe(before.available_fen + 37);
    expect(during.reserved_fen).toBe(37);
    expect(during.withdrawable_fen).toBe(before.withdrawable_fen);
    // Everything withdrawable is taken; the running share is refused.
    const all = await request('partner', during.withdrawable_fen);
    expect(all.status).toBe(201);
    expect(await request('partner', 100)).toMatchObject({
      status: 409,
      body: { code: 'NO_AVAILABLE_BALANCE' },
    });
    // The member stops at once: the whole payment is refunded, the share taken back.
    await t.deps.db.transaction((tx) =>
      refundOrder(tx, { order_id: orderId!, amount_fen: 200, reason: '提前结束' }),
    );
    expect(await settleWechatRefunds(t.deps.db)).toBe(1);
    await t.deps.db
      .update(device_sessions)
      .set({ status: 'stopped' })
      .where(eq(device_sessions.order_id, orderId!));
    const after = (await wallet('partner')).body;
    expect(after).toMatchObject({ available_fen: 0, reserved_fen: 0, withdrawable_fen: 0 });
    await assertLedgerInvariants(t.deps.db);
  });
});

describe('who sees what', () => {
  it("a merchant lists its own and its partners' requests; the admin all, with a merchant filter", async () => {
    await credit(t.deps.db, other.owner, 1000);
    const theirs = (await request(other.owner.username, 400)).body;
    const mine = await t.json<Page<Withdrawal>>(
      '/backend/merchant/withdrawals?page_size=100',
      as(tok.merchant!),
    );
    expect(mine.status).toBe(200);
    const names = new Set(mine.body.items.map((w) => w.account.username));
    expect(names).toEqual(new Set(['merchant', 'partner']));
    expect(mine.body.items.some((w) => w.id === theirs.id)).toBe(false);
    const all = await t.json<Page<Withdrawal>>('/backend/merchant/withdrawals?page_size=100', as(tok.admin!));
    expect(all.body.total).toBe(mine.body.total + 1);
    const filtered = await t.json<Page<Withdrawal>>(
      `/backend/merchant/withdrawals?merchant_id=${other.merchant_id}`,
      as(tok.admin!),
    );
    expect(filtered.body.items.map((w) => w.id)).toEqual([theirs.id]);
    const byStatus = await t.json<Page<Withdrawal>>(
      '/backend/merchant/withdrawals?status=paid',
      as(tok.admin!),
    );
    expect(byStatus.body.items.every((w) => w.status === 'paid')).toBe(true);
    expect((await t.request('/backend/merchant/withdrawals?status=nope', as(tok.admin!))).status).toBe(400);
    expect((await t.request('/backend/merchant/withdrawals', as(tok.partner!))).status).toBe(403);
  });

  it("another merchant's request answers 404 to a merchant, whatever headers it forges", async () => {
    const theirs = (
      await t.json<Page<Withdrawal>>(
        `/backend/merchant/withdrawals?merchant_id=${other.merchant_id}`,
        as(tok.admin!),
      )
    ).body.items[0]!;
    const s = await snapshot();
    const forged = { 'X-UserLevel': '1', 'X-MerchantID': String(other.merchant_id) };
    expect(
      (await t.json(`/backend/merchant/withdrawals/${theirs.id}`, as(tok.merchant!, {}, forged))).status,
    ).toBe(404);
    expect((await act('merchant', theirs.id, 'approve', {}, forged)).status).toBe(404);
    expect((await act('merchant', theirs.id, 'reject', { reason: 'x' }, forged)).status).toBe(404);
    const list = await t.json<Page<Withdrawal>>(
      `/backend/merchant/withdrawals?merchant_id=${other.merchant_id}`,
      as(tok.merchant!, {}, forged),
    );
    expect(list.body.items).toEqual([]);
    // The merchant's own wallet, not the other one's, whatever it claims to be.
    expect((await t.json<WalletView>('/backend/wallet', as(tok.merchant!, {}, forged))).body.kind).toBe(
      'merchant',
    );
    expect(
      (
        await t.json(
          '/backend/admin/withdrawals/' + theirs.id + '/approve',
          as(tok.partner!, postJson({}), forged),
        )
      ).status,
    ).toBe(403);
    expect(await snapshot()).toEqual(s);
    const own = await t.json(`/backend/merchant/withdrawals/${theirs.id}`, as(tok[other.owner.username]!));
    expect(own.status).toBe(200);
    await assertLedgerInvariants(t.deps.db);
  });
});
