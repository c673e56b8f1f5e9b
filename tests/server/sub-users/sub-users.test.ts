/**
 * `/backend/sub-users` against the real app and database: a merchant adds a partner and an employee with an
 * initial password (they sign in), edits name and phone, resets the password and disables an account (its tokens
 * stop working at once, sign-in is refused); duplicate usernames 409; the other merchant's ids 404 whatever
 * headers are forged; the admin sees every merchant's with a merchant filter; bad input changes nothing.
 */
import { count, eq, inArray } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { SubUser } from '../../../src/domain/sub-users.schema';
import { accounts, audit_log } from '../../../server/db/schema';
import { createTestApp, type TestApp } from '../test-app';
import { as, createOtherMerchant, FORGED, type OtherMerchant } from '../people/fixtures';

let t: TestApp;
let admin: string;
let merchant: string;
let other: OtherMerchant;
let otherToken: string;
beforeAll(async () => {
  t = await createTestApp();
  other = await createOtherMerchant(t.deps.db);
  admin = await t.login('admin');
  merchant = await t.login('merchant');
  otherToken = await t.login('other');
});
afterAll(async () => t?.close());

const snapshot = async () => ({
  accounts: await t.deps.db.select().from(accounts).orderBy(accounts.id),
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});
const loginStatus = async (username: string, password: string) =>
  (
    await t.request('/backend/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    })
  ).status;

describe('sub-users', () => {
  it("lists only the merchant's own partners and employees; the admin sees all and filters by merchant", async () => {
    const own = await t.json<Page<SubUser>>('/backend/sub-users', as(merchant, 'GET', undefined, FORGED));
    expect(own.status).toBe(200);
    expect(own.body.items.map((u) => u.username).sort()).toEqual(['employee', 'partner']);
    expect(own.body.items.every((u) => u.merchant_id === 1)).toBe(true);
    const all = await t.json<Page<SubUser>>('/backend/sub-users', as(admin));
    expect(all.body.total).toBe(4);
    const filtered = await t.json<Page<SubUser>>(
      `/backend/sub-users?merchant_id=${other.merchant_id}&role=partner`,
      as(admin),
    );
    expect(filtered.body.items.map((u) => u.id)).toEqual([other.partner_id]);
    // A merchant's own filter cannot widen its scope.
    const widened = await t.json<Page<SubUser>>(
      `/backend/sub-users?merchant_id=${other.merchant_id}`,
      as(merchant),
    );
    expect(widened.body.items.every((u) => u.merchant_id === 1)).toBe(true);
    const search = await t.json<Page<SubUser>>(
      `/backend/sub-users?q=${encodeURIComponent('王强')}`,
      as(merchant),
    );
    expect(search.body.items.map((u) => u.username)).toEqual(['employee']);
  });

  it('adds an employee who signs in; edits, resets the password and disables with audit rows', async () => {
    const created = await t.json<SubUser>(
      '/backend/sub-users',
      as(merchant, 'POST', {
        username: 'clerk01',
        name: ' 店员 小周 ',
        phone: '13800001111',
        role: 'employee',
        password: 'start1234',
        merchant_id: other.merchant_id, // ignored: the token decides
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      username: 'clerk01',
      name: '店员 小周',
      phone: '13800001111',
      role: 'employee',
      level: 4,
      status: 'active',
      merchant_id: 1,
    });
    const [row] = await t.deps.db.select().from(accounts).where(eq(accounts.id, created.body.id));
    expect(row!.password_hash).toMatch(/^scrypt\$/);
    const clerk = await t.login('clerk01', 'start1234');
    expect((await t.request('/backend/auth/me', as(clerk))).status).toBe(200);

    const id = created.body.id;
    const edited = await t.json<SubUser>(
      `/backend/sub-users/${id}`,
      as(merchant, 'PUT', { name: '小周', phone: '' }),
    );
    expect(edited.body).toMatchObject({ name: '小周', phone: '' });
    expect((await t.request('/backend/auth/me', as(clerk))).status).toBe(200);

    // A new password signs the account out and only the new one works.
    await t.json(`/backend/sub-users/${id}`, as(merchant, 'PUT', { password: 'newpass99' }));
    expect((await t.request('/backend/auth/me', as(clerk))).status).toBe(401);
    expect(await loginStatus('clerk01', 'start1234')).toBe(401);
    const clerk2 = await t.login('clerk01', 'newpass99');

    // Disabled: the token stops at once, sign-in is refused; enabled again it signs in.
    const disabled = await t.json<SubUser>(
      `/backend/sub-users/${id}`,
      as(merchant, 'PUT', { status: 'disabled' }),
    );
    expect(disabled.body.status).toBe('disabled');
    expect((await t.request('/backend/auth/me', as(clerk2))).status).toBe(401);
    expect((await t.request('/backend/dashboard', as(clerk2))).status).toBe(401);
    expect(await loginStatus('clerk01', 'newpass99')).toBe(401);
    await t.json(`/backend/sub-users/${id}`, as(merchant, 'PUT', { status: 'active' }));
    await t.login('clerk01', 'newpass99');

    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(eq(audit_log.entity_id, String(id)))
      .orderBy(audit_log.id);
    expect(audits.map((a) => a.action)).toEqual([
      'sub_users.create',
      'sub_users.update',
      'sub_users.update',
      'sub_users.update',
      'sub_users.update',
    ]);
    expect(audits[2]!.details).toMatchObject({ password_reset: true, signed_out: true });
    expect(JSON.stringify(audits)).not.toContain('newpass99');
  });

  it("a duplicate username is 409 (any merchant's, the admin's too) and changes nothing", async () => {
    const before = await snapshot();
    for (const username of ['partner', 'other', 'admin']) {
      const r = await t.json<{ code: string; message: string }>(
        '/backend/sub-users',
        as(merchant, 'POST', { username, name: '重名', role: 'partner', password: 'abcdefgh' }),
      );
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('USERNAME_TAKEN');
      expect(r.body.message).toContain(username);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("every id of the other merchant (and the owners' and admin's) answers 404, forged headers or not", async () => {
    const before = await snapshot();
    for (const id of [other.partner_id, other.employee_id, other.owner_id, 1, 2]) {
      const get = await t.request(`/backend/sub-users/${id}`, as(merchant, 'GET', undefined, FORGED));
      expect(get.status, `GET ${id}`).toBe(404);
      const put = await t.request(
        `/backend/sub-users/${id}`,
        as(merchant, 'PUT', { status: 'disabled' }, FORGED),
      );
      expect(put.status, `PUT ${id}`).toBe(404);
    }
    const back = await t.request(`/backend/sub-users/3`, as(otherToken, 'PUT', { name: 'x' }));
    expect(back.status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it('partners and employees get 403; no token 401; the admin must name the merchant', async () => {
    const partner = await t.login('partner');
    const employee = await t.login('employee');
    for (const tok of [partner, employee]) {
      expect((await t.request('/backend/sub-users', as(tok, 'GET', undefined, FORGED))).status).toBe(403);
      const post = await t.request(
        '/backend/sub-users',
        as(tok, 'POST', { username: 'sneaky', name: 'x', role: 'employee', password: 'abcdefgh' }, FORGED),
      );
      expect(post.status).toBe(403);
    }
    expect((await t.request('/backend/sub-users')).status).toBe(401);
    const noMerchant = await t.json<{ details: Record<string, string> }>(
      '/backend/sub-users',
      as(admin, 'POST', { username: 'adm-made', name: '甲', role: 'partner', password: 'abcdefgh' }),
    );
    expect(noMerchant.status).toBe(400);
    expect(noMerchant.body.details.merchant_id).toBeTruthy();
    const made = await t.json<SubUser>(
      '/backend/sub-users',
      as(admin, 'POST', {
        username: 'adm-made',
        name: '甲',
        role: 'partner',
        password: 'abcdefgh',
        merchant_id: other.merchant_id,
      }),
    );
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ merchant_id: other.merchant_id, level: 3 });
  });

  it('bad input (property-based) answers 4xx with a code and changes nothing', async () => {
    const before = await snapshot();
    const body = fc.record(
      {
        username: fc.oneof(fc.string(), fc.constant(''), fc.constant('has space'), fc.integer()),
        name: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(''), fc.constant(null)),
        phone: fc.oneof(fc.string(), fc.constant('123')),
        role: fc.oneof(fc.constant('admin'), fc.constant('merchant'), fc.string()),
        password: fc.oneof(fc.string({ maxLength: 7 }), fc.constant('with space 1')),
        status: fc.string(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom(2, 3, 999999), async (b, id) => {
        const post = await t.json<{ code: string }>('/backend/sub-users', as(merchant, 'POST', b));
        expect(post.status).toBeGreaterThanOrEqual(400);
        expect(post.status).toBeLessThan(500);
        expect(post.body.code).toBeTruthy();
        const put = await t.request(`/backend/sub-users/${id}`, as(merchant, 'PUT', { ...b, role: 'admin' }));
        expect(put.status).toBeGreaterThanOrEqual(400);
        expect(put.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
    expect(await snapshot()).toEqual(before);
    const ids = before.accounts.filter((a) => a.level >= 3).map((a) => a.id);
    expect((await t.deps.db.select().from(accounts).where(inArray(accounts.id, ids))).length).toBe(
      ids.length,
    );
  });
});
