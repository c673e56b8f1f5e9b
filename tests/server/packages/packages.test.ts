/**
 * `/backend/merchant/packages` against the real app and database: a merchant lists, adds, edits, deactivates,
 * reorders and deletes its recharge packages; the admin sees every merchant's (with `?merchant_id=`) and must name
 * the merchant on create; another merchant's package answers 404 on every call, forged headers or not; bad input is
 * a 400 naming the fields and changes nothing; every write leaves an audit row in its transaction.
 */
import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { Package } from '../../../src/domain/packages.schema';
import { audit_log, packages } from '../../../server/db/schema';
import { addOtherMerchant, as, forged, send, type OtherMerchant } from '../venues/catalogue-fixtures';
import { createTestApp, type TestApp } from '../test-app';

let t: TestApp;
let admin: string;
let merchant: string;
let b: OtherMerchant;
let demoMerchantId: number;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login('admin');
  merchant = await t.login('merchant');
  b = await addOtherMerchant(t);
  const [p] = await t.deps.db.select().from(packages).orderBy(packages.id).limit(1);
  demoMerchantId = p!.merchant_id;
});
afterAll(async () => t?.close());

const URL_ = '/backend/merchant/packages';
const snapshot = async () => ({
  rows: await t.deps.db.select().from(packages).orderBy(packages.id),
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});
const list = (token: string, query = '') => t.json<Page<Package>>(`${URL_}${query}`, as(token));
const add = (body: unknown, token = merchant) => t.json<Package>(URL_, as(token, send('POST', body)));

describe('packages: lists', () => {
  it('a merchant sees only its own packages in order; the admin sees all and filters by merchant', async () => {
    const own = await list(merchant);
    expect(own.status).toBe(200);
    expect(own.body.items.map((p) => [p.name, p.pay_fen, p.bonus_fen, p.active])).toEqual([
      ['充 50 送 5', 5000, 500, true],
      ['充 100 送 15', 10000, 1500, true],
    ]);
    expect(own.body.items.every((p) => p.merchant_id === demoMerchantId)).toBe(true);
    expect((await list(merchant, `?merchant_id=${b.merchant_id}`)).body.total).toBe(0);
    const forgedList = await t.json<Page<Package>>(URL_, as(merchant, { headers: forged(b.merchant_id) }));
    expect(forgedList.body.items.every((p) => p.merchant_id === demoMerchantId)).toBe(true);
    expect((await list(admin)).body.total).toBe(3);
    expect((await list(admin, `?merchant_id=${b.merchant_id}`)).body.items.map((p) => p.id)).toEqual([
      b.package_id,
    ]);
    for (const bad of ['?merchant_id=-1', '?active=maybe', '?page_size=0']) {
      expect((await list(admin, bad)).status, bad).toBe(400);
    }
  });
});

describe('packages: writes', () => {
  it('adds, edits, deactivates and deletes a package, each with an audit row; the active filter works', async () => {
    const created = await add({ name: ' 充 200 送 40 ', pay_fen: 20000, bonus_fen: 4000 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: '充 200 送 40',
      pay_fen: 20000,
      bonus_fen: 4000,
      active: true,
      sort: 3,
      merchant_id: demoMerchantId,
      order_count: 0,
    });
    const id = created.body.id;
    const edited = await t.json<Package>(
      `${URL_}/${id}`,
      as(merchant, send('PUT', { bonus_fen: 5000, active: false })),
    );
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ bonus_fen: 5000, active: false });
    expect((await list(merchant, '?active=false')).body.items.map((p) => p.id)).toEqual([id]);
    expect((await t.request(`${URL_}/${id}`, as(merchant, { method: 'DELETE' }))).status).toBe(204);
    expect((await t.request(`${URL_}/${id}`, as(merchant))).status).toBe(404);
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.entity, 'packages'), eq(audit_log.entity_id, String(id))))
      .orderBy(audit_log.id);
    expect(audits.map((a) => a.action)).toEqual(['packages.create', 'packages.update', 'packages.delete']);
    expect(audits.every((a) => a.merchant_id === demoMerchantId && a.account_id !== null)).toBe(true);
    expect(audits[1]!.details).toMatchObject({
      before: { bonus_fen: 4000, active: true },
      after: { bonus_fen: 5000, active: false },
    });
  });

  it("reorders one merchant's packages in one call; a partial or mixed list is refused and nothing moves", async () => {
    const ids = (await list(merchant)).body.items.map((p) => p.id);
    const res = await t.json<Page<Package>>(
      `${URL_}/order`,
      as(merchant, send('PUT', { ids: [...ids].reverse() })),
    );
    expect(res.status).toBe(200);
    expect(res.body.items.map((p) => p.id)).toEqual([...ids].reverse());
    const before = await snapshot();
    const partial = await t.json<{ code: string }>(
      `${URL_}/order`,
      as(merchant, send('PUT', { ids: [ids[0]] })),
    );
    expect(partial.status).toBe(409);
    expect(partial.body.code).toBe('LIST_CHANGED');
    const withB = await t.request(
      `${URL_}/order`,
      as(merchant, send('PUT', { ids: [...ids, b.package_id] })),
    );
    expect(withB.status).toBe(404);
    const mixed = await t.request(`${URL_}/order`, as(admin, send('PUT', { ids: [...ids, b.package_id] })));
    expect(mixed.status).toBe(409);
    expect(await snapshot()).toEqual(before);
    await t.request(`${URL_}/order`, as(merchant, send('PUT', { ids })));
  });

  it('the admin must name an existing merchant; a merchant naming another answers 404; nothing added', async () => {
    const before = await snapshot();
    const body = { name: '充 10', pay_fen: 1000 };
    const missing = await t.json<{ details: Record<string, string> }>(URL_, as(admin, send('POST', body)));
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual({ merchant_id: '请选择商户' });
    expect((await add({ ...body, merchant_id: 99999 }, admin)).status).toBe(400);
    expect((await add({ ...body, merchant_id: b.merchant_id })).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    const forB = await add({ ...body, merchant_id: b.merchant_id }, admin);
    expect(forB.status).toBe(201);
    expect(forB.body).toMatchObject({ merchant_id: b.merchant_id, bonus_fen: 0, sort: 2 });
  });
});

describe('packages: who may', () => {
  it("another merchant's package answers 404 on every call, forged headers or not; nothing changes", async () => {
    const before = await snapshot();
    for (const headers of [{}, forged(b.merchant_id)]) {
      for (const init of [{}, send('PUT', { pay_fen: 1 }), { method: 'DELETE' }] as RequestInit[]) {
        const res = await t.request(
          `${URL_}/${b.package_id}`,
          as(merchant, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } }),
        );
        expect(res.status, init.method ?? 'GET').toBe(404);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('partners and employees get 403; no token 401', async () => {
    for (const who of ['partner', 'employee']) {
      const token = await t.login(who);
      expect((await t.request(URL_, as(token))).status).toBe(403);
      expect((await t.request(`${URL_}/1`, as(token, { method: 'DELETE' }))).status).toBe(403);
    }
    expect((await t.request(URL_)).status).toBe(401);
  });
});

describe('packages: bad input', () => {
  it('is a 400 naming the fields, and changes nothing (property-based)', async () => {
    const before = await snapshot();
    const ok = { name: fc.constant('ok'), pay_fen: fc.constant(1000) };
    const badMoney = fc.oneof(
      fc.constantFrom(-1, 1.5, '100', null, true, 10_000_001, Number.MAX_SAFE_INTEGER, 1e21),
      fc.integer({ max: -1 }),
      fc.double({ min: 0.001, max: 1000, noInteger: true }),
    );
    const bad = fc.oneof(
      fc.record({ ...ok, pay_fen: fc.oneof(badMoney, fc.constant(0)) }),
      fc.record({ ...ok, bonus_fen: badMoney }),
      fc.record({ ...ok, name: fc.constantFrom('', ' ', 'x'.repeat(33), 0, null, ['a']) }),
      fc.record({ ...ok, active: fc.constantFrom('true', 0, null) }),
      fc.record({ ...ok, sort: fc.constantFrom(-1, 0.5, '1') }),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (body) => {
        const res = await t.json<{ code: string; details: Record<string, string> }>(
          URL_,
          as(merchant, send('POST', body)),
        );
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        const fields = Object.keys(res.body.details);
        expect(fields).toHaveLength(1);
        const field = fields[0]!;
        const put = await t.json<{ details: Record<string, string> }>(
          `${URL_}/1`,
          as(merchant, send('PUT', { [field]: (body as Record<string, unknown>)[field] })),
        );
        expect(put.status).toBe(400);
        expect(Object.keys(put.body.details)).toEqual([field]);
      }),
      { numRuns: 60 },
    );
    for (const id of ['0', 'x', '2.5', '99999999999']) {
      expect((await t.request(`${URL_}/${id}`, as(merchant, send('PUT', { pay_fen: 1 })))).status).toBe(400);
    }
    expect((await t.request(`${URL_}/99999`, as(merchant, send('PUT', { pay_fen: 1 })))).status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });
});
