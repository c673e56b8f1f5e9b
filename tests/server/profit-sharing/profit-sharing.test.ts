/**
 * `/backend/profit-sharing` against the real app and database: rules of venue x partner x ratio; a venue's ratios
 * never sum above 100%, also under concurrent writes (the venue row is locked); a change applies to payments from
 * then on and the history keeps every change; a partner reads their own rules with `?mine=1`; the other merchant's
 * ids answer 404 whatever headers are forged; bad input changes nothing.
 */
import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { ShareRule, ShareRuleChange } from '../../../src/domain/profit-sharing.schema';
import {
  accounts,
  audit_log,
  ledger_entries,
  share_rule_changes,
  share_rules,
  wallets,
} from '../../../server/db/schema';
import { assertLedgerInvariants } from '../money/invariants';
import { createMember, fundMember, payFromWallet } from '../device-sessions/devices-fixtures';
import { createTestApp, type TestApp } from '../test-app';
import { as, createOtherMerchant, FORGED, type OtherMerchant } from '../people/fixtures';

let t: TestApp;
let admin: string;
let merchant: string;
let other: OtherMerchant;
let partnerId: number;
let partner2: number;
beforeAll(async () => {
  t = await createTestApp();
  other = await createOtherMerchant(t.deps.db);
  admin = await t.login('admin');
  merchant = await t.login('merchant');
  const [p] = await t.deps.db.select().from(accounts).where(eq(accounts.username, 'partner'));
  partnerId = p!.id;
  const made = await t.json<{ id: number }>(
    '/backend/sub-users',
    as(merchant, 'POST', { username: 'partner2', name: '合伙人 二', role: 'partner', password: 'abcdefgh' }),
  );
  partner2 = made.body.id;
});
afterAll(async () => t?.close());

const snapshot = async () => ({
  rules: await t.deps.db.select().from(share_rules).orderBy(share_rules.id),
  changes: (await t.deps.db.select({ n: count() }).from(share_rule_changes))[0]!.n,
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});
const partnerCredits = async (accountId: number) =>
  (
    await t.deps.db
      .select({ a: ledger_entries.amount_fen })
      .from(ledger_entries)
      .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
      .where(and(eq(wallets.kind, 'partner'), eq(wallets.account_id, accountId)))
      .orderBy(ledger_entries.id)
  ).map((r) => r.a);

describe('profit sharing', () => {
  it("lists the merchant's rules with names, the venue total and when each took effect", async () => {
    const { status, body } = await t.json<Page<ShareRule>>(
      '/backend/profit-sharing',
      as(merchant, 'GET', undefined, FORGED),
    );
    expect(status).toBe(200);
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({
      venue_id: 1,
      venue_name: '星河广场店',
      partner_account_id: partnerId,
      ratio_bp: 2000,
      venue_total_bp: 2000,
      merchant_id: 1,
    });
    expect(body.items[0]!.valid_from).toMatch(/Z$/);
    const all = await t.json<Page<ShareRule>>('/backend/profit-sharing', as(admin));
    expect(all.body.total).toBe(2);
    const filtered = await t.json<Page<ShareRule>>(
      `/backend/profit-sharing?merchant_id=${other.merchant_id}`,
      as(admin),
    );
    expect(filtered.body.items.map((r) => r.id)).toEqual([other.rule_id]);
  });

  it('a change applies to payments from then on; the history keeps every change', async () => {
    const member = await createMember(t.deps.db);
    await fundMember(t.deps.db, member, 1, 10_000);
    const now = new Date();
    await payFromWallet(t.deps.db, member, 1, now); // 200 fen: fee 12, net 188, 20% = 37
    const [rule] = (await t.json<Page<ShareRule>>('/backend/profit-sharing?venue_id=1', as(merchant))).body
      .items;
    const put = await t.json<ShareRule>(
      `/backend/profit-sharing/${rule!.id}`,
      as(merchant, 'PUT', { ratio_bp: 5000 }),
    );
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ ratio_bp: 5000, venue_total_bp: 5000 });
    await payFromWallet(t.deps.db, member, 2, now); // 50% of 188 = 94
    expect(await partnerCredits(partnerId)).toEqual([37, 94]);
    await assertLedgerInvariants(t.deps.db);

    const history = await t.json<Page<ShareRuleChange>>(
      '/backend/profit-sharing/history?venue_id=1',
      as(merchant),
    );
    expect(history.body.items.map((h) => [h.action, h.previous_bp, h.ratio_bp])).toEqual([
      ['update', 2000, 5000],
      ['create', null, 2000],
    ]);
    expect(history.body.items[0]!.by).toBe('星河共享 · 陈老板');
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(eq(audit_log.action, 'profit_sharing.update'));
    expect(audits[0]!.details).toMatchObject({ before: { ratio_bp: 2000 }, after: { ratio_bp: 5000 } });
  });

  it('a venue never sums above 100%: 409 with what is left, nothing changed', async () => {
    const before = await snapshot();
    const over = await t.json<{ code: string; message: string; details: { available_bp: number } }>(
      '/backend/profit-sharing',
      as(merchant, 'POST', { venue_id: 1, partner_account_id: partner2, ratio_bp: 5001 }),
    );
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('SHARE_OVER_100');
    expect(over.body.details.available_bp).toBe(5000);
    expect(over.body.message).toContain('50%');
    expect(await snapshot()).toEqual(before);
    const exact = await t.json<ShareRule>(
      '/backend/profit-sharing',
      as(merchant, 'POST', { venue_id: 1, partner_account_id: partner2, ratio_bp: 5000 }),
    );
    expect(exact.status).toBe(201);
    expect(exact.body.venue_total_bp).toBe(10_000);
    const [first] = (
      await t.json<Page<ShareRule>>(`/backend/profit-sharing?partner_account_id=${partnerId}`, as(merchant))
    ).body.items;
    const raise = await t.request(
      `/backend/profit-sharing/${first!.id}`,
      as(merchant, 'PUT', { ratio_bp: 5001 }),
    );
    expect(raise.status).toBe(409);
    const dup = await t.json<{ code: string }>(
      '/backend/profit-sharing',
      as(merchant, 'POST', { venue_id: 1, partner_account_id: partner2, ratio_bp: 1 }),
    );
    expect(dup.body.code).toBe('SHARE_RULE_EXISTS');
    const del = await t.request(`/backend/profit-sharing/${exact.body.id}`, as(merchant, 'DELETE'));
    expect(del.status).toBe(204);
    const history = await t.json<Page<ShareRuleChange>>(
      `/backend/profit-sharing/history?partner_account_id=${partner2}`,
      as(merchant),
    );
    expect(history.body.items.map((h) => h.action)).toEqual(['delete', 'create']);
  });

  it('concurrent creates on one venue: the sum stays within 100%', async () => {
    // Venue 2 has no rule; four partners ask for 40% each at once: at most two fit.
    const ids: number[] = [];
    for (const i of [1, 2, 3, 4]) {
      const r = await t.json<{ id: number }>(
        '/backend/sub-users',
        as(merchant, 'POST', {
          username: `race-p${i}`,
          name: `并发 ${i}`,
          role: 'partner',
          password: 'abcdefgh',
        }),
      );
      ids.push(r.body.id);
    }
    const results = await Promise.all(
      ids.map((id) =>
        t.request(
          '/backend/profit-sharing',
          as(merchant, 'POST', { venue_id: 2, partner_account_id: id, ratio_bp: 4000 }),
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 409, 409]);
    const [sum] = await t.deps.db
      .select({ s: share_rules.ratio_bp })
      .from(share_rules)
      .where(eq(share_rules.venue_id, 2));
    const rules = await t.deps.db.select().from(share_rules).where(eq(share_rules.venue_id, 2));
    expect(rules.reduce((s, r) => s + r.ratio_bp, 0)).toBe(8000);
    expect(sum).toBeTruthy();
    // Concurrent raises of both rules to 60%: one wins.
    const raises = await Promise.all(
      rules.map((r) => t.request(`/backend/profit-sharing/${r.id}`, as(merchant, 'PUT', { ratio_bp: 6000 }))),
    );
    expect(raises.map((r) => r.status).sort()).toEqual([200, 409]);
    const after = await t.deps.db.select().from(share_rules).where(eq(share_rules.venue_id, 2));
    expect(after.reduce((s, r) => s + r.ratio_bp, 0)).toBe(10_000);
  });

  it("the other merchant's rule, venue and partner answer 404, forged headers or not", async () => {
    const before = await snapshot();
    const o = other;
    for (const [method, path, body] of [
      ['GET', `/backend/profit-sharing/${o.rule_id}`, undefined],
      ['PUT', `/backend/profit-sharing/${o.rule_id}`, { ratio_bp: 1 }],
      ['DELETE', `/backend/profit-sharing/${o.rule_id}`, undefined],
      [
        'POST',
        '/backend/profit-sharing',
        { venue_id: o.venue_id, partner_account_id: partnerId, ratio_bp: 1 },
      ],
      ['POST', '/backend/profit-sharing', { venue_id: 2, partner_account_id: o.partner_id, ratio_bp: 1 }],
      ['POST', '/backend/profit-sharing', { venue_id: 2, partner_account_id: 4, ratio_bp: 1 }],
    ] as const) {
      const r = await t.request(path, as(merchant, method, body, FORGED));
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(404);
    }
    const hist = await t.json<Page<ShareRuleChange>>(
      `/backend/profit-sharing/history?merchant_id=${o.merchant_id}`,
      as(merchant),
    );
    expect(hist.body.items.every((h) => h.venue_id !== o.venue_id)).toBe(true);
    expect(await snapshot()).toEqual(before);
  });

  it('a partner reads only their own rules with ?mine=1 and is refused the rest (403)', async () => {
    const partner = await t.login('partner');
    const mine = await t.json<Page<ShareRule>>(
      '/backend/profit-sharing?mine=1',
      as(partner, 'GET', undefined, FORGED),
    );
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((r) => r.partner_account_id)).toEqual([partnerId]);
    expect((await t.request('/backend/profit-sharing', as(partner, 'GET', undefined, FORGED))).status).toBe(
      403,
    );
    expect((await t.request('/backend/profit-sharing/history', as(partner))).status).toBe(403);
    const post = await t.request(
      '/backend/profit-sharing',
      as(partner, 'POST', { venue_id: 1, partner_account_id: partnerId, ratio_bp: 1 }, FORGED),
    );
    expect(post.status).toBe(403);
    const employee = await t.login('employee');
    expect(
      (await t.json<Page<ShareRule>>('/backend/profit-sharing?mine=1', as(employee))).body.items,
    ).toEqual([]);
    expect((await t.request('/backend/profit-sharing?mine=1')).status).toBe(401);
  });

  it('bad input (property-based) answers 4xx and changes nothing', async () => {
    const before = await snapshot();
    const ratio = fc.oneof(
      fc.integer({ min: -5, max: 0 }),
      fc.integer({ min: 10_001 }),
      fc.double(),
      fc.string(),
      fc.constant(null),
    );
    const id = fc.oneof(fc.integer({ max: 0 }), fc.string(), fc.constant(1.5), fc.constant(true));
    const body = fc.oneof(
      fc.record({ venue_id: fc.constant(1), partner_account_id: fc.constant(partner2), ratio_bp: ratio }),
      fc.record({ venue_id: id, partner_account_id: fc.constant(partner2), ratio_bp: fc.constant(1) }),
      fc.record({ venue_id: fc.constant(1), partner_account_id: id, ratio_bp: fc.constant(1) }),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const post = await t.request('/backend/profit-sharing', as(merchant, 'POST', b));
        expect([400, 404, 409, 415]).toContain(post.status);
        const put = await t.request('/backend/profit-sharing/1', as(merchant, 'PUT', b));
        expect(put.status).toBeGreaterThanOrEqual(400);
        expect(put.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
    expect(await snapshot()).toEqual(before);
  });
});
