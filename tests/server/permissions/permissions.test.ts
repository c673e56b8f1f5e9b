import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { accounts, devices, merchants, permissions, products, venues } from '../../../server/db/schema';
import { hashPassword } from '../../../server/auth/password';
import { bearer, createTestApp, type TestApp } from '../test-app';
import { FEATURES } from '../../../src/domain/levels';

let t: TestApp;
let otherMerchantId: number;
beforeAll(async () => {
  t = await createTestApp();
  // A second merchant with its own venue and device, to show scoping.
  const [m] = await t.deps.db.insert(merchants).values({ name: '另一家商户' }).returning();
  otherMerchantId = m!.id;
  const [v] = await t.deps.db.insert(venues).values({ merchant_id: m!.id, name: '别人的门店' }).returning();
  const [p] = await t.deps.db.select().from(products).limit(1);
  await t.deps.db.insert(devices).values({
    merchant_id: m!.id,
    venue_id: v!.id,
    product_id: p!.id,
    name: '别人的设备',
    serial: 'OTHER-0001',
    last_heartbeat_at: new Date(),
  });
  await t.deps.db.insert(accounts).values({
    username: 'other',
    name: '别家老板',
    role: 'merchant',
    level: 2,
    merchant_id: m!.id,
    password_hash: await hashPassword('demo1234'),
  });
});
afterAll(async () => {
  await t.close();
});

const put = (token: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'PUT',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('authorization comes from the token only', () => {
  it('a merchant token with X-UserLevel: 1 and X-MerchantID cannot reach admin endpoints', async () => {
    const token = await t.login('merchant');
    const forged = { 'X-UserLevel': '1', 'X-MerchantID': String(otherMerchantId) };
    const get = await t.json<{ code: string }>('/backend/admin/permissions', bearer(token, forged));
    expect(get.status).toBe(403);
    expect(get.body.code).toBe('FORBIDDEN');
    const before = await t.deps.db.select().from(permissions);
    const change = await t.json(
      '/backend/admin/permissions',
      put(token, { items: [{ level: 2, feature: 'admin.merchants', allowed: true }] }, forged),
    );
    expect(change.status).toBe(403);
    expect(await t.deps.db.select().from(permissions)).toEqual(before);
  });

  it('headers alone, without a token, get 401', async () => {
    const res = await t.request('/backend/admin/permissions', {
      headers: { 'X-UserLevel': '1', 'X-MerchantID': '1' },
    });
    expect(res.status).toBe(401);
  });

  it('X-MerchantID does not widen a merchant to another merchant’s data', async () => {
    const token = await t.login('merchant');
    const own = await t.json<{
      merchant_id: number;
      venues: number;
      devices: number;
      devices_online: number;
    }>('/backend/dashboard', bearer(token));
    const forged = await t.json(
      '/backend/dashboard',
      bearer(token, { 'X-MerchantID': String(otherMerchantId), 'X-UserLevel': '1' }),
    );
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ merchant_id: 1, venues: 2, devices: 6, devices_online: 0 });
    expect(forged.body).toEqual(own.body);

    const other = await t.json<{ merchant_id: number; venues: number; devices_online: number }>(
      '/backend/dashboard',
      bearer(await t.login('other')),
    );
    expect(other.body).toMatchObject({
      merchant_id: otherMerchantId,
      venues: 1,
      devices: 1,
      devices_online: 1,
    });

    const admin = await t.json<{ merchant_id: null; venues: number; devices: number }>(
      '/backend/dashboard',
      bearer(await t.login('admin')),
    );
    expect(admin.body).toMatchObject({ merchant_id: null, venues: 3, devices: 7 });
  });
});

describe('permission matrix', () => {
  it('is served from the DB to level 1', async () => {
    const admin = await t.login('admin');
    const { status, body } = await t.json<{ items: { level: number; feature: string; allowed: boolean }[] }>(
      '/backend/admin/permissions',
      bearer(admin),
    );
    expect(status).toBe(200);
    expect(body.items).toHaveLength(FEATURES.length * 4);
    expect(body.items).toContainEqual({ level: 4, feature: 'employee.cashRecharge', allowed: true });
    expect(body.items).toContainEqual({ level: 2, feature: 'employee.cashRecharge', allowed: false });
  });

  it('a change by level 1 is stored and decides /me features and access at once', async () => {
    const admin = await t.login('admin');
    const employee = await t.login('employee');
    const res = await t.json(
      '/backend/admin/permissions',
      put(admin, { items: [{ level: 4, feature: 'admin.permissions', allowed: true }] }),
    );
    expect(res.status).toBe(200);
    const me = await t.json<{ features: string[] }>('/backend/auth/me', bearer(employee));
    expect(me.body.features).toContain('admin.permissions');
    expect((await t.request('/backend/admin/permissions', bearer(employee))).status).toBe(200);
    // Reading is granted, but changing the matrix stays level 1 only.
    const attempt = await t.json(
      '/backend/admin/permissions',
      put(employee, { items: [{ level: 4, feature: 'admin.merchants', allowed: true }] }),
    );
    expect(attempt.status).toBe(403);
    await t.json(
      '/backend/admin/permissions',
      put(admin, { items: [{ level: 4, feature: 'admin.permissions', allowed: false }] }),
    );
    expect((await t.request('/backend/admin/permissions', bearer(employee))).status).toBe(403);
  });

  it('refuses to reduce level 1 and rejects unknown features, changing nothing', async () => {
    const admin = await t.login('admin');
    const before = await t.deps.db
      .select({ n: count() })
      .from(permissions)
      .where(eq(permissions.allowed, true));
    const reduce = await t.json<{ code: string; details: Record<string, string> }>(
      '/backend/admin/permissions',
      put(admin, {
        items: [
          { level: 2, feature: 'wallet', allowed: false },
          { level: 1, feature: 'wallet', allowed: false },
        ],
      }),
    );
    expect(reduce.status).toBe(400);
    expect(reduce.body.details['items.1.allowed']).toBe('平台管理员的权限不能取消');
    const unknown = await t.json<{ code: string }>(
      '/backend/admin/permissions',
      put(admin, { items: [{ level: 2, feature: 'nope', allowed: true }] }),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('VALIDATION_FAILED');
    const after = await t.deps.db
      .select({ n: count() })
      .from(permissions)
      .where(eq(permissions.allowed, true));
    expect(after).toEqual(before);
  });

  it('a partner (wallet only) cannot read the merchant’s dashboard figures, whatever headers it sends', async () => {
    const token = await t.login('partner');
    const res = await t.json<{ code: string }>(
      '/backend/dashboard',
      bearer(token, { 'X-UserLevel': '2', 'X-MerchantID': '1' }),
    );
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});
