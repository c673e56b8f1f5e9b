/**
 * `/backend/admin/products` against the real app and database: the admin lists, searches, adds, edits, retires and
 * deletes device models; a model in use cannot be deleted (409, clear message); a merchant gets 403 whatever
 * headers it forges; bad input is a 400 naming the fields and changes nothing; every write leaves an audit row.
 */
import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { Product } from '../../../src/domain/products.schema';
import { audit_log, products } from '../../../server/db/schema';
import { asStaff, createTestApp, sendJson, type TestApp } from '../test-app';

let t: TestApp;
let admin: string;
let merchant: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login('admin');
  merchant = await t.login('merchant');
});
afterAll(async () => t?.close());

const as = asStaff;
const send = sendJson;
const snapshot = async () => ({
  rows: await t.deps.db.select().from(products).orderBy(products.id),
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});

describe('device models', () => {
  it('lists the demo models with their device counts, paged, searchable and filtered by status', async () => {
    const { status, body } = await t.json<Page<Product>>('/backend/admin/products', as(admin));
    expect(status).toBe(200);
    expect(body.total).toBe(2);
    expect(body.items.map((p) => p.device_count).sort()).toEqual([2, 4]);
    const found = await t.json<Page<Product>>(
      `/backend/admin/products?q=${encodeURIComponent('按摩')}`,
      as(admin),
    );
    expect(found.body.items).toHaveLength(1);
    expect(found.body.items[0]!.category).toBe('massage');
    const literal = await t.json<Page<Product>>('/backend/admin/products?q=%25', as(admin));
    expect(literal.body.total).toBe(0);
    const paged = await t.json<Page<Product>>('/backend/admin/products?page=2&page_size=1', as(admin));
    expect(paged.body).toMatchObject({ page: 2, page_size: 1, total: 2 });
    expect(paged.body.items).toHaveLength(1);
  });

  it('adds, edits, retires and deletes a model, each with an audit row', async () => {
    const created = await t.json<Product>(
      '/backend/admin/products',
      as(admin, send('POST', { name: '  滚筒洗衣机 X1 ', category: 'washer', description: '10 公斤' })),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: '滚筒洗衣机 X1',
      category: 'washer',
      status: 'active',
      device_count: 0,
    });
    const id = created.body.id;
    const edited = await t.json<Product>(
      `/backend/admin/products/${id}`,
      as(admin, send('PUT', { description: '12 公斤', status: 'retired' })),
    );
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: '滚筒洗衣机 X1', description: '12 公斤', status: 'retired' });
    const retired = await t.json<Page<Product>>('/backend/admin/products?status=retired', as(admin));
    expect(retired.body.items.map((p) => p.id)).toEqual([id]);
    const del = await t.request(`/backend/admin/products/${id}`, as(admin, { method: 'DELETE' }));
    expect(del.status).toBe(204);
    expect((await t.request(`/backend/admin/products/${id}`, as(admin))).status).toBe(404);
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.entity, 'products'), eq(audit_log.entity_id, String(id))))
      .orderBy(audit_log.id);
    expect(audits.map((a) => a.action)).toEqual(['products.create', 'products.update', 'products.delete']);
    expect(audits[1]!.details).toMatchObject({ before: { status: 'active' }, after: { status: 'retired' } });
    expect(audits.every((a) => a.account_id !== null)).toBe(true);
  });

  it('refuses to delete a model that devices use: 409 with a clear message, nothing changed', async () => {
    const before = await snapshot();
    const { status, body } = await t.json<{ code: string; message: string }>(
      '/backend/admin/products/1',
      as(admin, { method: 'DELETE' }),
    );
    expect(status).toBe(409);
    expect(body.code).toBe('PRODUCT_IN_USE');
    expect(body.message).toMatch(/台设备在用.*停用/);
    expect(await snapshot()).toEqual(before);
  });

  it('a merchant gets 403 on every call, forged headers or not; no token is 401', async () => {
    const before = await snapshot();
    const forged = { headers: { 'X-UserLevel': '1', 'X-MerchantID': '' } };
    for (const [path, init] of [
      ['/backend/admin/products', {}],
      ['/backend/admin/products/1', {}],
      ['/backend/admin/products', send('POST', { name: 'x', category: 'other' })],
      ['/backend/admin/products/1', send('PUT', { name: 'x' })],
      ['/backend/admin/products/2', { method: 'DELETE' }],
    ] as const) {
      const res = await t.request(
        path,
        as(merchant, { ...init, headers: { ...forged.headers, ...(init as RequestInit).headers } }),
      );
      expect(res.status, `${(init as RequestInit).method ?? 'GET'} ${path}`).toBe(403);
    }
    expect((await t.request('/backend/admin/products')).status).toBe(401);
    expect(await snapshot()).toEqual(before);
  });

  it('bad input is a 400 naming the fields, and changes nothing (property-based)', async () => {
    const before = await snapshot();
    const bad = fc.oneof(
      fc.record({
        name: fc.constantFrom('', '   ', 'x'.repeat(65), 12, null),
        category: fc.constantFrom('charger'),
      }),
      fc.record({
        name: fc.constant('ok'),
        category: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      }),
      fc.record({
        name: fc.constant('ok'),
        category: fc.constant('other'),
        description: fc.constantFrom('y'.repeat(501), 5, []),
      }),
      fc.record({ category: fc.constant('other') }),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (body) => {
        const res = await t.json<{ code: string; details: Record<string, string> }>(
          '/backend/admin/products',
          as(admin, send('POST', body)),
        );
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(Object.keys(res.body.details).length).toBeGreaterThan(0);
      }),
      { numRuns: 40 },
    );
    for (const id of ['0', 'abc', '1.5', '99999999999']) {
      expect(
        (await t.request(`/backend/admin/products/${id}`, as(admin, send('PUT', { name: 'x' })))).status,
      ).toBe(400);
    }
    expect(
      (await t.request('/backend/admin/products/9999', as(admin, send('PUT', { name: 'x' })))).status,
    ).toBe(404);
    const badStatus = await t.request(
      '/backend/admin/products/1',
      as(admin, send('PUT', { status: 'gone' })),
    );
    expect(badStatus.status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });
});
