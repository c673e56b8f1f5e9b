/**
 * `/backend/merchant/members` against the real app and database: members with a wallet or an order at the
 * merchant, searchable, with balances and totals; a member's page; a bonus credit through the ledger (from the
 * external promotion wallet to the member's bonus), the audit log and `Idempotency-Key` (a repeat credits once),
 * the ledger invariants after; the other merchant's members 404; bad input (property-based) changes nothing.
 */
import { count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { BonusCreditResult, MemberDetail, MerchantMember } from '../../../src/domain/members.schema';
import { audit_log, bonus_credits, ledger_entries, members, wallets } from '../../../server/db/schema';
import { assertLedgerInvariants } from '../money/invariants';
import { createMember, fundMember, payFromWallet } from '../device-sessions/devices-fixtures';
import { createTestApp, type TestApp } from '../test-app';
import { as, createOtherMerchant, FORGED, type OtherMerchant } from '../people/fixtures';

let t: TestApp;
let admin: string;
let merchant: string;
let other: OtherMerchant;
let amy: number;
let ben: number;
beforeAll(async () => {
  t = await createTestApp();
  other = await createOtherMerchant(t.deps.db);
  admin = await t.login('admin');
  merchant = await t.login('merchant');
  amy = await createMember(t.deps.db);
  ben = await createMember(t.deps.db);
  await t.deps.db.update(members).set({ nickname: '艾米' }).where(eq(members.id, amy));
  await t.deps.db.update(members).set({ nickname: '小本' }).where(eq(members.id, ben));
  await fundMember(t.deps.db, amy, 1, 5000);
  await payFromWallet(t.deps.db, amy, 1, new Date());
  await fundMember(t.deps.db, ben, 1, 300);
  await fundMember(t.deps.db, ben, other.merchant_id, 700);
});
afterAll(async () => t?.close());

const snapshot = async () => ({
  wallets: await t.deps.db.select().from(wallets).orderBy(wallets.id),
  entries: (await t.deps.db.select({ n: count() }).from(ledger_entries))[0]!.n,
  credits: (await t.deps.db.select({ n: count() }).from(bonus_credits))[0]!.n,
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});
const bonus = (token: string, id: number, body: unknown, key?: string) =>
  t.json<BonusCreditResult & { code?: string; details?: Record<string, string> }>(
    `/backend/merchant/members/${id}/bonus`,
    as(token, 'POST', body, key === undefined ? {} : { 'Idempotency-Key': key }),
  );

describe('members', () => {
  it("lists the merchant's members with balances, last visit and totals; searchable", async () => {
    const { status, body } = await t.json<Page<MerchantMember>>(
      '/backend/merchant/members',
      as(merchant, 'GET', undefined, FORGED),
    );
    expect(status).toBe(200);
    expect(body.items.map((m) => m.id).sort()).toEqual([amy, ben].sort());
    const a = body.items.find((m) => m.id === amy)!;
    expect(a).toMatchObject({
      nickname: '艾米',
      merchant_id: 1,
      principal_fen: 4800,
      bonus_fen: 0,
      balance_fen: 4800,
      orders: 2,
      consume_total_fen: 200,
      recharge_total_fen: 5000,
    });
    expect(a.last_visit_at).toMatch(/Z$/);
    expect(body.items.find((m) => m.id === ben)!.balance_fen).toBe(300);
    const found = await t.json<Page<MerchantMember>>(
      `/backend/merchant/members?q=${encodeURIComponent('艾')}`,
      as(merchant),
    );
    expect(found.body.items.map((m) => m.id)).toEqual([amy]);
    const byId = await t.json<Page<MerchantMember>>(`/backend/merchant/members?q=${ben}`, as(merchant));
    expect(byId.body.items.map((m) => m.id)).toEqual([ben]);
    expect(
      (await t.json<Page<MerchantMember>>('/backend/merchant/members?q=%25', as(merchant))).body.total,
    ).toBe(0);
    // The admin sees one row per member and merchant, and filters by merchant.
    const all = await t.json<Page<MerchantMember>>('/backend/merchant/members', as(admin));
    expect(
      all.body.items
        .filter((m) => m.id === ben)
        .map((m) => m.balance_fen)
        .sort(),
    ).toEqual([300, 700]);
    const theirs = await t.json<Page<MerchantMember>>(
      `/backend/merchant/members?merchant_id=${other.merchant_id}`,
      as(admin),
    );
    expect(theirs.body.items.map((m) => m.id).sort()).toEqual([other.member_id, ben].sort());
  });

  it("a member's page: wallet entries, orders and sessions at this merchant only", async () => {
    const { status, body } = await t.json<MemberDetail>(`/backend/merchant/members/${amy}`, as(merchant));
    expect(status).toBe(200);
    expect(body.member.id).toBe(amy);
    expect(body.orders.map((o) => o.kind).sort()).toEqual(['consume', 'recharge']);
    expect(body.sessions).toHaveLength(1);
    expect(body.sessions[0]!.device_name).toBe('广场 1 号充电桩');
    expect(body.entries.map((e) => e.amount_fen).sort((x, y) => x - y)).toEqual([-200, 5000]);
    const benHere = await t.json<MemberDetail>(`/backend/merchant/members/${ben}`, as(merchant));
    expect(benHere.body.entries.map((e) => e.amount_fen)).toEqual([300]);
    const adminNeedsMerchant = await t.request(`/backend/merchant/members/${ben}`, as(admin));
    expect(adminNeedsMerchant.status).toBe(400);
    const adminThere = await t.json<MemberDetail>(
      `/backend/merchant/members/${ben}?merchant_id=${other.merchant_id}`,
      as(admin),
    );
    expect(adminThere.body.member.balance_fen).toBe(700);
  });

  it('a bonus credit goes through the ledger and the audit log; a repeated key credits once', async () => {
    const first = await bonus(merchant, amy, { amount_fen: 500, note: ' 设备故障补偿 ' }, 'bonus-amy-1');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      amount_fen: 500,
      note: '设备故障补偿',
      bonus_fen: 500,
      balance_fen: 5300,
    });
    const again = await bonus(merchant, amy, { amount_fen: 500, note: '设备故障补偿' }, 'bonus-amy-1');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.balance_fen).toBe(5300);
    const reused = await bonus(merchant, amy, { amount_fen: 900, note: '设备故障补偿' }, 'bonus-amy-1');
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const parallel = await Promise.all(
      [1, 2, 3].map(() => bonus(merchant, ben, { amount_fen: 100, note: '排队补偿' }, 'bonus-ben-par')),
    );
    expect(parallel.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    const [w] = await t.deps.db.select().from(wallets).where(eq(wallets.member_id, ben)).orderBy(wallets.id);
    expect(w!.bonus_fen).toBe(100);
    const detail = await t.json<MemberDetail>(`/backend/merchant/members/${amy}`, as(merchant));
    expect(detail.body.member).toMatchObject({ bonus_fen: 500, balance_fen: 5300 });
    expect(detail.body.entries[0]).toMatchObject({ kind: 'bonus_credit', bucket: 'bonus', amount_fen: 500 });
    const audits = await t.deps.db.select().from(audit_log).where(eq(audit_log.action, 'members.bonus'));
    expect(audits).toHaveLength(2);
    expect(audits[0]!.details).toMatchObject({
      amount_fen: 500,
      note: '设备故障补偿',
      after: { bonus_fen: 500 },
    });
    // The admin names the merchant.
    const byAdmin = await bonus(
      admin,
      ben,
      { amount_fen: 50, note: '平台补偿', merchant_id: other.merchant_id },
      'adm-1',
    );
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.balance_fen).toBe(750);
    await assertLedgerInvariants(t.deps.db);
  });

  it("the other merchant's member answers 404 and gets no credit, forged headers or not", async () => {
    const before = await snapshot();
    const id = other.member_id;
    expect(
      (await t.request(`/backend/merchant/members/${id}`, as(merchant, 'GET', undefined, FORGED))).status,
    ).toBe(404);
    expect(
      (
        await bonus(
          merchant,
          id,
          { amount_fen: 100, note: '越权补偿', merchant_id: other.merchant_id },
          'x-1',
        )
      ).status,
    ).toBe(404);
    expect((await t.request(`/backend/merchant/members/999999`, as(merchant))).status).toBe(404);
    const partner = await t.login('partner');
    expect((await t.request('/backend/merchant/members', as(partner, 'GET', undefined, FORGED))).status).toBe(
      403,
    );
    expect((await bonus(partner, amy, { amount_fen: 100, note: '合伙人补偿' }, 'p-1')).status).toBe(403);
    expect((await t.request('/backend/merchant/members')).status).toBe(401);
    expect(await snapshot()).toEqual(before);
  });

  it('bad input (property-based): no note, bad amounts, no or bad key answer 4xx and change nothing', async () => {
    const before = await snapshot();
    const amount = fc.oneof(
      fc.integer({ max: 0 }),
      fc.integer({ min: 100_001 }),
      fc.double(),
      fc.string(),
      fc.constant(null),
    );
    const note = fc.oneof(
      fc.constant(''),
      fc.constant(' '),
      fc.constant('a'),
      fc.string({ minLength: 201, maxLength: 260 }),
      fc.integer(),
    );
    const body = fc.oneof(
      fc.record({ amount_fen: amount, note: fc.constant('正常原因') }),
      fc.record({ amount_fen: fc.constant(100), note }),
      fc.anything(),
    );
    const key = fc.oneof(
      fc.constant(undefined),
      fc.constant(''),
      fc.constant('has space'),
      fc.string({ minLength: 101, maxLength: 120 }),
    );
    await fc.assert(
      fc.asyncProperty(body, key, async (b, k) => {
        const r = await bonus(merchant, amy, b, k ?? (Math.random() < 0.5 ? undefined : 'fine-key'));
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
    const noKey = await bonus(merchant, amy, { amount_fen: 100, note: '合法原因' });
    expect(noKey.status).toBe(400);
    expect(noKey.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect(await snapshot()).toEqual(before);
    await assertLedgerInvariants(t.deps.db);
  });
});
