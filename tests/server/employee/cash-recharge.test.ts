/**
 * The cash desk over the real app and database: member codes (assigned at sign-up, returned by the profile, valid
 * check digits), the member lookup by code scoped to the employee's merchant, cash recharges (package bonus
 * included, wallet opened on the first one, the employee recorded, not split, audited), idempotency (the same key
 * twice, 20 racing requests with one key: one credit), the employee's list of today, levels, and bad input
 * (property-based) with nothing changed. Ledger invariants after each step.
 */
import { and, eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserProfile } from '../../../src/domain/api';
import type {
  CashRechargeList,
  CashRechargeResponse,
  EmployeeMember,
} from '../../../src/domain/cash-recharge.schema';
import { isValidMemberCode, memberCodeFrom } from '../../../src/domain/member-code';
import { audit_log, ledger_entries, ledger_transactions, orders, wallets } from '../../../server/db/schema';
import { assertLedgerInvariants } from '../money/invariants';
import { createTestApp, signInMember, type TestWorld, withCookie, WORLD } from '../test-app';
import { as, memberIdOf, moneySnapshot, otherMerchant, post, staffLogin } from './employee-fixtures';

let t: TestWorld;
let employee: string;
let employee2: string;
let merchant: string;
let admin: string;
let partner: string;
let alice: { id: number; code: string };
let aliceCookie: string;

const recharge = (token: string, body: unknown, key: string | undefined) =>
  t.json<CashRechargeResponse & { code?: string; details?: Record<string, string> }>(
    '/backend/employee/cash-recharge',
    as(token, post(body, key)),
  );
const lookup = (token: string, code: string, extra = '') =>
  t.json<EmployeeMember & { code: string; message: string }>(
    `/backend/employee/member?code=${encodeURIComponent(code)}${extra}`,
    as(token),
  );
async function balance(memberId: number, merchantId = 1) {
  const [w] = await t.deps.db
    .select()
    .from(wallets)
    .where(and(eq(wallets.member_id, memberId), eq(wallets.merchant_id, merchantId)));
  // A cash recharge is cash principal (docs/decisions.md D18): the principal here is all cash, none online.
  if (w && w.principal_fen !== 0)
    throw new Error(`online principal ${w.principal_fen} after cash recharges only`);
  return w
    ? { total: w.cash_principal_fen + w.bonus_fen, principal: w.cash_principal_fen, bonus: w.bonus_fen }
    : null;
}
/** A valid code nobody has (the check digit is right, so the lookup is a real 404). */
function unusedCode(): string {
  let n = 0;
  return memberCodeFrom(() => (n++ === 0 ? 8 : 0)); // "90000000" + check digit
}

beforeAll(async () => {
  t = await createTestApp(WORLD);
  await otherMerchant(t);
  employee = await staffLogin(t, 'employee');
  employee2 = await staffLogin(t, 'employee2');
  merchant = await staffLogin(t, 'merchant');
  admin = await staffLogin(t, 'admin');
  partner = await staffLogin(t, 'partner');
  aliceCookie = await signInMember(t, 'cash-alice');
  alice = await memberIdOf(t, 'cash-alice');
});
afterAll(async () => t?.close());

describe('member codes', () => {
  it('every member gets a valid, unique code at sign-up, returned by the profile', async () => {
    expect(isValidMemberCode(alice.code)).toBe(true);
    const profile = await t.json<UserProfile>('/backend/user/profile', withCookie(aliceCookie));
    expect(profile.body.member.code).toBe(alice.code);
    await signInMember(t, 'cash-bob');
    const bob = await memberIdOf(t, 'cash-bob');
    expect(isValidMemberCode(bob.code)).toBe(true);
    expect(bob.code).not.toBe(alice.code);
  });

  it('the database draws valid codes (the SQL check digit agrees with src/domain/member-code.ts)', async () => {
    const res = (await t.deps.db.execute(
      sql`select member_code() as c from generate_series(1, 300)`,
    )) as unknown as { rows: { c: string }[] };
    expect(res.rows).toHaveLength(300);
    for (const { c } of res.rows) expect(isValidMemberCode(c), c).toBe(true);
    expect(new Set(res.rows.map((r) => r.c)).size).toBeGreaterThan(295);
  });
});

describe('member lookup', () => {
  it('finds the member by code with the balance at the employee’s merchant only', async () => {
    const found = await lookup(employee, `${alice.code.slice(0, 4)} ${alice.code.slice(4)}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: alice.id, code: alice.code, balance_fen: 0, has_wallet: false });
    expect(found.body.nickname.length).toBeGreaterThan(0);
  });

  it('an unknown code is 404 with a clear message; a mistyped one 400; no code 400', async () => {
    const unknown = await lookup(employee, unusedCode());
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('MEMBER_NOT_FOUND');
    expect(unknown.body.message).toMatch(/未找到该会员码/);
    const swapped = alice.code.slice(0, 6) + alice.code[7] + alice.code[6];
    if (swapped !== alice.code) expect((await lookup(employee, swapped)).status).toBe(400);
    expect((await t.request('/backend/employee/member', as(employee))).status).toBe(400);
  });
});

describe('cash recharge', () => {
  it('credits a package with its bonus, opens the wallet, records the employee, is not split, audited', async () => {
    const res = await recharge(employee, { member_code: alice.code, package_id: 1, note: '前台收现' }, 'k-1');
    expect(res.status).toBe(201);
    expect(res.body.replayed).toBe(false);
    expect(res.body.order).toMatchObject({
      status: 'paid',
      method: 'cash',
      amount_fen: 5000,
      bonus_fen: 500,
      package_name: '充 50 送 5',
      note: '前台收现',
      member: { id: alice.id, code: alice.code },
    });
    expect(res.body.member).toMatchObject({ balance_fen: 5500, principal_fen: 5000, bonus_fen: 500 });
    expect(await balance(alice.id)).toEqual({ total: 5500, principal: 5000, bonus: 500 });
    const [o] = await t.deps.db.select().from(orders).where(eq(orders.order_no, res.body.order.order_no));
    expect(o).toMatchObject({
      kind: 'recharge',
      method: 'cash',
      operator_account_id: res.body.order.operator.id,
    });
    // Not split: the ledger moved money only between the till, promotion and the member's wallet.
    const moved = await t.deps.db
      .select({ kind: wallets.kind, code: wallets.code, amount: ledger_entries.amount_fen })
      .from(ledger_entries)
      .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
      .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
      .where(eq(ledger_transactions.order_id, o!.id));
    expect(moved.map((m) => `${m.kind}:${m.code ?? ''}:${m.amount}`).sort()).toEqual(
      ['external:cash:-5000', 'external:promotion:-500', 'member::5000', 'member::500'].sort(),
    );
    const [audit] = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.action, 'cash_recharge.create'), eq(audit_log.entity_id, o!.order_no)));
    expect(audit?.details).toMatchObject({ note: '前台收现', after: { amount_fen: 5000, bonus_fen: 500 } });
    await assertLedgerInvariants(t.deps.db);
  });

  it('the same key again answers the first result and credits nothing; another request with it is 409', async () => {
    const again = await recharge(
      employee,
      { member_code: alice.code, package_id: 1, note: '前台收现' },
      'k-1',
    );
    expect(again.status).toBe(200);
    expect(again.body.replayed).toBe(true);
    expect(again.body.member.balance_fen).toBe(5500);
    expect(await balance(alice.id)).toEqual({ total: 5500, principal: 5000, bonus: 500 });
    const other = await recharge(employee, { member_code: alice.code, amount_fen: 100, note: 'x' }, 'k-1');
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await balance(alice.id)).toEqual({ total: 5500, principal: 5000, bonus: 500 });
  });

  it('20 racing requests with one key credit once', async () => {
    const body = { member_code: alice.code, amount_fen: 1234, note: '连点' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => recharge(employee, body, 'race-1')));
    expect(answers.every((a) => a.status === 201 || a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.order.order_no)).size).toBe(1);
    expect(await balance(alice.id)).toEqual({ total: 5500 + 1234, principal: 5000 + 1234, bonus: 500 });
    await assertLedgerInvariants(t.deps.db);
  });

  it('the employee sees their own cash recharges of today; another merchant’s employee sees none', async () => {
    const mine = await t.json<CashRechargeList>('/backend/employee/cash-recharges', as(employee));
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((i) => i.amount_fen)).toEqual([1234, 5000]);
    expect(mine.body.total_fen).toBe(6234);
    expect(mine.body.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const theirs = await t.json<CashRechargeList>('/backend/employee/cash-recharges', as(employee2));
    expect(theirs.body.items).toEqual([]);
  });

  it('another merchant’s employee sees the member with zero balance there and credits only there', async () => {
    const seen = await lookup(employee2, alice.code);
    expect(seen.status).toBe(200);
    expect(seen.body.balance_fen).toBe(0);
    expect(seen.body.merchant_id).not.toBe(1);
    const foreignPkg = await recharge(
      employee2,
      { member_code: alice.code, package_id: 1, note: 'x' },
      'e2-1',
    );
    expect(foreignPkg.status).toBe(400);
    expect(foreignPkg.body.code).toBe('PACKAGE_NOT_FOUND');
    const ok = await recharge(employee2, { member_code: alice.code, amount_fen: 300, note: '别家' }, 'e2-2');
    expect(ok.status).toBe(201);
    expect(ok.body.member.balance_fen).toBe(300);
    expect(await balance(alice.id)).toEqual({ total: 6734, principal: 6234, bonus: 500 });
    await assertLedgerInvariants(t.deps.db);
  });

  it('levels: merchant and partner 403 (forged headers or not), no token 401, admin names the merchant', async () => {
    const forged = { headers: { 'X-UserLevel': '4', 'X-MerchantID': '1' } };
    for (const token of [merchant, partner]) {
      expect((await lookup(token, alice.code)).status).toBe(403);
      const res = await t.request(
        '/backend/employee/cash-recharge',
        as(token, { ...post({ member_code: alice.code, amount_fen: 1, note: 'x' }, 'f'), ...forged }),
      );
      expect(res.status).toBe(403);
    }
    expect((await t.request(`/backend/employee/member?code=${alice.code}`)).status).toBe(401);
    const noMerchant = await recharge(admin, { member_code: alice.code, amount_fen: 100, note: 'x' }, 'a-1');
    expect(noMerchant.status).toBe(400);
    expect(noMerchant.body.details).toHaveProperty('merchant_id');
    expect((await lookup(admin, alice.code, '&merchant_id=1')).body.balance_fen).toBe(6734);
  });

  it('bad input is 400 and changes nothing (property-based)', async () => {
    const before = await moneySnapshot(t);
    const badAmount = fc.oneof(
      fc.constantFrom(0, -1, -5000, 0.5, 12.34, 1_000_001, 1e12, Number.MAX_SAFE_INTEGER, '5000', null, true),
      fc.integer({ max: 0 }),
      fc.integer({ min: 1_000_001 }),
      fc.double({ min: 0.01, max: 999_999, noInteger: true }),
    );
    const bad = fc.oneof(
      fc.record({ member_code: fc.constant(alice.code), amount_fen: badAmount, note: fc.constant('x') }),
      fc.record({
        member_code: fc.constant(alice.code),
        amount_fen: fc.constant(100),
        note: fc.constantFrom('', '   ', 'y'.repeat(201), 5, null),
      }),
      fc.record({ member_code: fc.constant(alice.code), amount_fen: fc.constant(100) }),
      fc.record({
        member_code: fc.constant(alice.code),
        package_id: fc.constant(1),
        amount_fen: fc.constant(100),
        note: fc.constant('x'),
      }),
      fc.record({ member_code: fc.constant(alice.code), note: fc.constant('x') }),
      fc.record({
        member_code: fc.oneof(
          fc.string(),
          fc.constantFrom(
            '1234567',
            '123456789',
            alice.code.replace(/.$/, (d) => String((Number(d) + 1) % 10)),
          ),
        ),
        amount_fen: fc.constant(100),
        note: fc.constant('x'),
      }),
      fc.record({
        member_code: fc.constant(alice.code),
        package_id: fc.constantFrom(0, -1, 1.5, '1', 99999),
        note: fc.constant('x'),
      }),
    );
    let i = 0;
    await fc.assert(
      fc.asyncProperty(bad, async (body) => {
        const res = await recharge(employee, body, `bad-${i++}`);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(typeof res.body.code).toBe('string');
      }),
      { numRuns: 80 },
    );
    const noKey = await recharge(
      employee,
      { member_code: alice.code, amount_fen: 100, note: 'x' },
      undefined,
    );
    expect(noKey.status).toBe(400);
    expect(noKey.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    const unknown = await recharge(
      employee,
      { member_code: unusedCode(), amount_fen: 100, note: 'x' },
      'u-1',
    );
    expect(unknown.status).toBe(404);
    expect(await moneySnapshot(t)).toEqual(before);
  });
});
