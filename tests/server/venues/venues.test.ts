/**
 * `/backend/merchant/venues` against the real app and database: a merchant lists, searches, adds and edits its own
 * venues; the admin sees every merchant's (with `?merchant_id=`) and must name the merchant on create; another
 * merchant's venue answers 404 whatever headers are forged; partners and employees get 403; bad input is a 400
 * naming the fields and changes nothing; every write leaves an audit row in its transaction.
 */
import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { Venue } from '../../../src/domain/venues.schema';
import { audit_log, venues } from '../../../server/db/schema';
import { addOtherMerchant, as, forged, send, type OtherMerchant } from './catalogue-fixtures';
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
  const [v] = await t.deps.db.select().from(venues).orderBy(venues.id).limit(1);
  demoMerchantId = v!.merchant_id;
});
afterAll(async () => t?.close());

const snapshot = async () => ({
  rows: await t.deps.db.select().from(venues).orderBy(venues.id),
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});
const list = (token: string, query = '') =>
  t.json<Page<Venue>>(`/backend/merchant/venues${query}`, as(token));

describe('venues: lists', () => {
  it('a merchant sees only its own venues, with price and device counts', async () => {
    const { status, body } = await list(merchant);
    expect(status).toBe(200);
    expect(body.total).toBe(2);
    expect(body.items.every((v) => v.merchant_id === demoMerchantId)).toBe(true);
    expect(body.items[0]).toMatchObject({
      name: '星河广场店',
      merchant_name: '星河共享自助',
      price_count: 3,
      active_price_count: 3,
      device_count: 3,
    });
    const other = await list(b.token);
    expect(other.body.items.map((v) => v.id)).toEqual([b.venue_id]);
  });

  it('a merchant asking for another merchant_id gets nothing of it; forged headers change nothing', async () => {
    const asked = await list(merchant, `?merchant_id=${b.merchant_id}`);
    expect(asked.status).toBe(200);
    expect(asked.body.total).toBe(0);
    const forgedList = await t.json<Page<Venue>>(
      '/backend/merchant/venues',
      as(merchant, { headers: forged(b.merchant_id) }),
    );
    expect(forgedList.body.items.every((v) => v.merchant_id === demoMerchantId)).toBe(true);
  });

  it('the admin sees every merchant, filters by merchant_id, searches name and address literally, pages', async () => {
    const all = await list(admin);
    expect(all.body.total).toBe(3);
    const onlyB = await list(admin, `?merchant_id=${b.merchant_id}`);
    expect(onlyB.body.items.map((v) => v.id)).toEqual([b.venue_id]);
    const byAddress = await list(admin, `?q=${encodeURIComponent('滨江')}`);
    expect(byAddress.body.items.map((v) => v.name)).toEqual(['滨江社区店']);
    expect((await list(admin, '?q=%25')).body.total).toBe(0);
    const paged = await list(admin, '?page=2&page_size=2');
    expect(paged.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(paged.body.items).toHaveLength(1);
    for (const bad of [
      '?merchant_id=0',
      '?merchant_id=abc',
      '?page=0',
      '?page_size=101',
      `?q=${'x'.repeat(65)}`,
    ]) {
      expect((await list(admin, bad)).status, bad).toBe(400);
    }
  });
});

describe('venues: writes', () => {
  it('a merchant adds and edits a venue; each write has an audit row with the merchant', async () => {
    const created = await t.json<Venue>(
      '/backend/merchant/venues',
      as(merchant, send('POST', { name: '  西溪店 ', address: '西溪路 1 号' })),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: '西溪店',
      address: '西溪路 1 号',
      merchant_id: demoMerchantId,
      price_count: 0,
      device_count: 0,
    });
    const id = created.body.id;
    const edited = await t.json<Venue>(
      `/backend/merchant/venues/${id}`,
      as(merchant, send('PUT', { address: '西溪路 2 号' })),
    );
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: '西溪店', address: '西溪路 2 号' });
    expect((await t.json<Venue>(`/backend/merchant/venues/${id}`, as(merchant))).body.address).toBe(
      '西溪路 2 号',
    );
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.entity, 'venues'), eq(audit_log.entity_id, String(id))))
      .orderBy(audit_log.id);
    expect(audits.map((a) => a.action)).toEqual(['venues.create', 'venues.update']);
    expect(audits.every((a) => a.merchant_id === demoMerchantId && a.account_id !== null)).toBe(true);
    expect(audits[1]!.details).toMatchObject({
      before: { address: '西溪路 1 号' },
      after: { address: '西溪路 2 号' },
    });
  });

  it('a merchant may name its own merchant_id; naming another merchant answers 404 and adds nothing', async () => {
    const own = await t.request(
      '/backend/merchant/venues',
      as(merchant, send('POST', { name: '自己的', merchant_id: demoMerchantId })),
    );
    expect(own.status).toBe(201);
    const before = await snapshot();
    const other = await t.request(
      '/backend/merchant/venues',
      as(merchant, send('POST', { name: '别人的', merchant_id: b.merchant_id })),
    );
    expect(other.status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it('the admin must name an existing merchant, and creates the venue for it', async () => {
    const before = await snapshot();
    const missing = await t.json<{ details: Record<string, string> }>(
      '/backend/merchant/venues',
      as(admin, send('POST', { name: '无主场地' })),
    );
    expect(missing.status).toBe(400);
    expect(missing.body.details.merchant_id).toBe('请选择商户');
    const unknown = await t.json<{ details: Record<string, string> }>(
      '/backend/merchant/venues',
      as(admin, send('POST', { name: '无主场地', merchant_id: 99999 })),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.merchant_id).toBe('商户不存在');
    expect(await snapshot()).toEqual(before);
    const forB = await t.json<Venue>(
      '/backend/merchant/venues',
      as(admin, send('POST', { name: 'B 第二场地', merchant_id: b.merchant_id })),
    );
    expect(forB.status).toBe(201);
    expect(forB.body.merchant_id).toBe(b.merchant_id);
    expect((await list(b.token)).body.items.map((v) => v.name)).toContain('B 第二场地');
    const [row] = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.action, 'venues.create'), eq(audit_log.entity_id, String(forB.body.id))));
    expect(row!.merchant_id).toBe(b.merchant_id);
  });
});

describe('venues: who may', () => {
  it("another merchant's venue answers 404 on read and write, forged headers or not; nothing changes", async () => {
    const before = await snapshot();
    for (const headers of [{}, forged(b.merchant_id)]) {
      const get = await t.request(`/backend/merchant/venues/${b.venue_id}`, as(merchant, { headers }));
      expect(get.status).toBe(404);
      const put = await t.request(
        `/backend/merchant/venues/${b.venue_id}`,
        as(merchant, {
          ...send('PUT', { name: '抢来的' }),
          headers: { ...headers, 'content-type': 'application/json' },
        }),
      );
      expect(put.status).toBe(404);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('partners and employees get 403 (the level matrix), no token 401', async () => {
    for (const who of ['partner', 'employee']) {
      const token = await t.login(who);
      expect((await t.request('/backend/merchant/venues', as(token))).status, who).toBe(403);
      expect(
        (await t.request('/backend/merchant/venues', as(token, send('POST', { name: 'x' })))).status,
      ).toBe(403);
    }
    expect((await t.request('/backend/merchant/venues')).status).toBe(401);
  });
});

describe('venues: bad input', () => {
  it('is a 400 naming the fields, and changes nothing (property-based)', async () => {
    const before = await snapshot();
    const badName = fc.constantFrom('', '   ', 'x'.repeat(65), 12, null, [], {});
    const bad = fc.oneof(
      fc.record({ name: badName }),
      fc.record({ name: fc.constant('ok'), address: fc.constantFrom('y'.repeat(201), 5, false, null) }),
      fc.record({
        name: fc.constant('ok'),
        merchant_id: fc.oneof(fc.constantFrom(0, -1, 1.5, '1', true, null, 2 ** 31), fc.string()),
      }),
      fc.record({ address: fc.constant('no name') }),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (body) => {
        const res = await t.json<{ code: string; details: Record<string, string> }>(
          '/backend/merchant/venues',
          as(merchant, send('POST', body)),
        );
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(Object.keys(res.body.details).length).toBeGreaterThan(0);
      }),
      { numRuns: 40 },
    );
    const badEdit = fc.oneof(
      fc.record({ name: badName }),
      fc.record({ address: fc.constantFrom('y'.repeat(201), 5, false, null) }),
    );
    await fc.assert(
      fc.asyncProperty(badEdit, async (body) => {
        const res = await t.json<{ code: string; details: Record<string, string> }>(
          '/backend/merchant/venues/1',
          as(merchant, send('PUT', body)),
        );
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.details)).toEqual(Object.keys(body));
      }),
      { numRuns: 30 },
    );
    for (const id of ['0', 'abc', '1.5', '99999999999']) {
      expect(
        (await t.request(`/backend/merchant/venues/${id}`, as(merchant, send('PUT', { name: 'x' })))).status,
      ).toBe(400);
    }
    expect(
      (await t.request('/backend/merchant/venues/99999', as(merchant, send('PUT', { name: 'x' })))).status,
    ).toBe(404);
    expect((await t.request('/backend/merchant/venues', as(merchant, send('POST', 'not json')))).status).toBe(
      400,
    );
    expect(
      (await t.request('/backend/merchant/venues', as(merchant, { method: 'POST', body: '{"name":"x"}' })))
        .status,
    ).toBe(415);
    const nul = await t.request('/backend/merchant/venues', as(merchant, send('POST', { name: 'a\u0000b' })));
    expect(nul.status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  it('an empty edit changes nothing and writes no audit row', async () => {
    const before = await snapshot();
    const res = await t.json<Venue>('/backend/merchant/venues/1', as(merchant, send('PUT', {})));
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(1);
    expect(await snapshot()).toEqual(before);
  });
});
