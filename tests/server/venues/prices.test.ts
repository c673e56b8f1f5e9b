/**
 * `/backend/merchant/venues/:id/prices` against the real app and database: a merchant adds, edits, deactivates,
 * reorders and deletes the service prices of its venue; end users (`GET /backend/api/venue-service-prices`) see
 * exactly the active ones in that order; another merchant's venue or price answers 404 on every call, forged
 * headers or not; bad input is a 400 naming the fields and changes nothing; every write leaves an audit row.
 */
import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, ServicePrice } from '../../../src/domain/api';
import type { Venue, VenuePrice } from '../../../src/domain/venues.schema';
import { audit_log, service_prices } from '../../../server/db/schema';
import { addOtherMerchant, as, forged, send, type OtherMerchant } from './catalogue-fixtures';
import { createTestApp, type TestApp } from '../test-app';

let t: TestApp;
let admin: string;
let merchant: string;
let b: OtherMerchant;
let venueId: number;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login('admin');
  merchant = await t.login('merchant');
  b = await addOtherMerchant(t);
  const v = await t.json<Venue>(
    '/backend/merchant/venues',
    as(merchant, send('POST', { name: '价格测试店' })),
  );
  venueId = v.body.id;
});
afterAll(async () => t?.close());

const base = () => `/backend/merchant/venues/${venueId}/prices`;
const snapshot = async () => ({
  rows: await t.deps.db.select().from(service_prices).orderBy(service_prices.id),
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});
const staffList = async (token = merchant) => (await t.json<Page<VenuePrice>>(base(), as(token))).body.items;
const publicList = async (id = venueId) =>
  (await t.json<{ items: ServicePrice[] }>(`/backend/api/venue-service-prices?venue_id=${id}`)).body.items;
const add = (body: unknown, token = merchant) => t.json<VenuePrice>(base(), as(token, send('POST', body)));

describe('service prices', () => {
  it('adds prices in order (sort after the last), edits one, and end users see them in that order', async () => {
    const a = await add({ name: '30 分钟', minutes: 30, price_fen: 200 });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      venue_id: venueId,
      name: '30 分钟',
      active: true,
      sort: 1,
      order_count: 0,
    });
    const b2 = await add({ name: '60 分钟', minutes: 60, price_fen: 350 });
    const c = await add({ name: '包夜', minutes: 600, price_fen: 1000, active: false });
    expect([b2.body.sort, c.body.sort]).toEqual([2, 3]);
    const edited = await t.json<VenuePrice>(
      `${base()}/${b2.body.id}`,
      as(merchant, send('PUT', { price_fen: 380, name: '一小时' })),
    );
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: '一小时', minutes: 60, price_fen: 380, active: true });
    expect((await staffList()).map((p) => p.name)).toEqual(['30 分钟', '一小时', '包夜']);
    expect(await publicList()).toEqual([
      { id: a.body.id, name: '30 分钟', minutes: 30, price_fen: 200 },
      { id: b2.body.id, name: '一小时', minutes: 60, price_fen: 380 },
    ]);
    const venue = await t.json<Venue>(`/backend/merchant/venues/${venueId}`, as(merchant));
    expect(venue.body).toMatchObject({ price_count: 3, active_price_count: 2 });
  });

  it('activating and deactivating changes exactly what end users see', async () => {
    const [first, , last] = await staffList();
    await t.request(`${base()}/${first!.id}`, as(merchant, send('PUT', { active: false })));
    await t.request(`${base()}/${last!.id}`, as(merchant, send('PUT', { active: true })));
    const seen = await publicList();
    const staffActive = (await staffList()).filter((p) => p.active).map((p) => p.id);
    expect(seen.map((p) => p.id)).toEqual(staffActive);
    expect(seen.map((p) => p.name)).toEqual(['一小时', '包夜']);
    await t.request(`${base()}/${first!.id}`, as(merchant, send('PUT', { active: true })));
  });

  it('reorders the whole list in one call; a list that changed meanwhile is refused and nothing moves', async () => {
    const ids = (await staffList()).map((p) => p.id);
    const reversed = [...ids].reverse();
    const res = await t.json<Page<VenuePrice>>(
      `${base()}/order`,
      as(merchant, send('PUT', { ids: reversed })),
    );
    expect(res.status).toBe(200);
    expect(res.body.items.map((p) => p.id)).toEqual(reversed);
    expect(res.body.items.map((p) => p.sort)).toEqual([1, 2, 3]);
    expect((await publicList()).map((p) => p.id)).toEqual(reversed);
    const before = await snapshot();
    for (const wrong of [
      reversed.slice(1),
      [...reversed, b.price_id],
      [reversed[0], reversed[0], reversed[1]],
    ]) {
      const r = await t.json<{ code: string }>(`${base()}/order`, as(merchant, send('PUT', { ids: wrong })));
      expect([400, 409]).toContain(r.status);
    }
    expect(await snapshot()).toEqual(before);
    const [audit] = await t.deps.db
      .select()
      .from(audit_log)
      .where(eq(audit_log.action, 'service_prices.reorder'));
    expect(audit!.details).toMatchObject({ before: ids, after: reversed, venue_id: venueId });
  });

  it('deletes a price no order refers to, with an audit row', async () => {
    const extra = await add({ name: '临时', minutes: 5, price_fen: 50 });
    const del = await t.request(`${base()}/${extra.body.id}`, as(merchant, { method: 'DELETE' }));
    expect(del.status).toBe(204);
    expect((await staffList()).map((p) => p.id)).not.toContain(extra.body.id);
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.entity, 'service_prices'), eq(audit_log.entity_id, String(extra.body.id))))
      .orderBy(audit_log.id);
    expect(audits.map((a) => a.action)).toEqual(['service_prices.create', 'service_prices.delete']);
    expect(audits.every((a) => a.account_id !== null && a.merchant_id !== null)).toBe(true);
    expect((await t.request(`${base()}/${extra.body.id}`, as(merchant, { method: 'DELETE' }))).status).toBe(
      404,
    );
  });

  it('a venue holds at most 50 prices (409, nothing added)', async () => {
    const v = await t.json<Venue>('/backend/merchant/venues', as(merchant, send('POST', { name: '满额店' })));
    const url = `/backend/merchant/venues/${v.body.id}/prices`;
    for (let i = 0; i < 50; i++) {
      const r = await t.request(
        url,
        as(merchant, send('POST', { name: `档 ${i}`, minutes: i + 1, price_fen: 100 })),
      );
      expect(r.status).toBe(201);
    }
    const before = await snapshot();
    const r = await t.json<{ code: string }>(
      url,
      as(merchant, send('POST', { name: '多一个', minutes: 1, price_fen: 1 })),
    );
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('TOO_MANY_PRICES');
    expect(await snapshot()).toEqual(before);
  });
});

describe('service prices: who may', () => {
  it("another merchant's venue or price answers 404 on every call, forged headers or not; nothing changes", async () => {
    const before = await snapshot();
    const [own] = await staffList();
    const bBase = `/backend/merchant/venues/${b.venue_id}/prices`;
    const calls: [string, RequestInit][] = [
      [bBase, {}],
      [bBase, send('POST', { name: 'x', minutes: 1, price_fen: 1 })],
      [`${bBase}/order`, send('PUT', { ids: [b.price_id] })],
      [`${bBase}/${b.price_id}`, send('PUT', { price_fen: 1 })],
      [`${bBase}/${b.price_id}`, { method: 'DELETE' }],
      // B's price through A's own venue, and A's price through B's venue
      [`${base()}/${b.price_id}`, send('PUT', { price_fen: 1 })],
      [`${base()}/${b.price_id}`, { method: 'DELETE' }],
      [`${bBase}/${own!.id}`, send('PUT', { price_fen: 1 })],
    ];
    for (const headers of [{}, forged(b.merchant_id)]) {
      for (const [path, init] of calls) {
        const res = await t.request(
          path,
          as(merchant, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } }),
        );
        expect(res.status, `${init.method ?? 'GET'} ${path}`).toBe(404);
      }
    }
    const bList = await t.json<Page<VenuePrice>>(bBase, as(b.token));
    expect(bList.body.items.map((p) => p.price_fen)).toEqual([300]);
    expect(await snapshot()).toEqual(before);
  });

  it("the admin reads and edits any merchant's prices; partners and employees get 403", async () => {
    const bBase = `/backend/merchant/venues/${b.venue_id}/prices`;
    expect((await t.json<Page<VenuePrice>>(bBase, as(admin))).body.total).toBe(1);
    const edited = await t.json<VenuePrice>(
      `${bBase}/${b.price_id}`,
      as(admin, send('PUT', { name: 'B 半小时' })),
    );
    expect(edited.body.name).toBe('B 半小时');
    const [row] = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.action, 'service_prices.update'), eq(audit_log.entity_id, String(b.price_id))));
    expect(row!.merchant_id).toBe(b.merchant_id);
    for (const who of ['partner', 'employee']) {
      const token = await t.login(who);
      expect((await t.request(base(), as(token))).status).toBe(403);
    }
  });
});

describe('service prices: bad input', () => {
  it('is a 400 naming the fields, and changes nothing (property-based)', async () => {
    const before = await snapshot();
    const [own] = await staffList();
    const okPrice = { name: 'ok', minutes: 30, price_fen: 100 };
    const badMoney = fc.oneof(
      fc.constantFrom(0, -1, 1.5, 0.01, '100', null, true, 10_000_001, Number.MAX_SAFE_INTEGER),
      fc.integer({ max: 0 }),
      fc.double({ min: 0.001, max: 1000, noInteger: true }),
    );
    const badMinutes = fc.oneof(
      fc.constantFrom(0, -5, 2.5, '30', null, 1441, 1e9),
      fc.integer({ min: 1441 }),
      fc.integer({ max: 0 }),
    );
    const bad = fc.oneof(
      fc.record({ ...fcConst(okPrice), price_fen: badMoney }),
      fc.record({ ...fcConst(okPrice), minutes: badMinutes }),
      fc.record({ ...fcConst(okPrice), name: fc.constantFrom('', '  ', 'x'.repeat(33), 5, null) }),
      fc.record({ ...fcConst(okPrice), active: fc.constantFrom('yes', 1, null) }),
      fc.record({ ...fcConst(okPrice), sort: fc.constantFrom(-1, 1.5, 'first', 100_001) }),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (body) => {
        const res = await t.json<{ code: string; details: Record<string, string> }>(
          base(),
          as(merchant, send('POST', body)),
        );
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(Object.keys(res.body.details).length).toBe(1);
        const { name: _n, minutes: _m, price_fen: _p, ...rest } = body as Record<string, unknown>;
        const changed = Object.keys(res.body.details)[0]!;
        const put = await t.json<{ details: Record<string, string> }>(
          `${base()}/${own!.id}`,
          as(merchant, send('PUT', { ...rest, [changed]: (body as Record<string, unknown>)[changed] })),
        );
        expect(put.status).toBe(400);
        expect(Object.keys(put.body.details)).toEqual([changed]);
      }),
      { numRuns: 60 },
    );
    for (const path of [`/backend/merchant/venues/0/prices/1`, `${base()}/abc`, `${base()}/1.5`]) {
      expect((await t.request(path, as(merchant, send('PUT', { price_fen: 1 })))).status).toBe(400);
    }
    for (const body of [
      {},
      { ids: [] },
      { ids: 'all' },
      { ids: [1, 'x'] },
      { ids: Array.from({ length: 201 }, (_, i) => i + 1) },
    ]) {
      expect((await t.request(`${base()}/order`, as(merchant, send('PUT', body)))).status).toBe(400);
    }
    expect((await t.request(`${base()}/99999`, as(merchant, send('PUT', { price_fen: 1 })))).status).toBe(
      404,
    );
    expect(await snapshot()).toEqual(before);
  });
});

/** `{ k: fc.constant(v) }` for every key of an object. */
function fcConst(o: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, fc.constant(v)]));
}
