/**
 * Who may touch which device on `/backend/merchant/devices`: merchant A never sees or changes merchant B's devices
 * or venues (404, whatever `X-MerchantID` or `X-UserLevel` say); the admin sees all with a merchant filter;
 * partners and employees get 403; bad input is a 4xx naming the fields and changes nothing (property-based).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { Device, DeviceOptions } from '../../../src/domain/devices.schema';
import { createTestApp, type TestApp } from '../test-app';
import { as, createOtherMerchant, send, snapshot } from './helpers';

let t: TestApp;
let a: string;
let b: string;
let admin: string;
let other: Awaited<ReturnType<typeof createOtherMerchant>>;
let bDevice: Device;
const URL = '/backend/merchant/devices';
beforeAll(async () => {
  t = await createTestApp();
  other = await createOtherMerchant(t.deps.db);
  [a, b, admin] = await Promise.all([t.login('merchant'), t.login(other.username), t.login('admin')]);
  const res = await t.json<Device>(
    URL,
    as(b, send('POST', { venue_id: other.venue_id, product_id: 1, name: '乙 1' })),
  );
  bDevice = res.body;
});
afterAll(async () => t?.close());

describe('scoping', () => {
  it('each merchant lists only its own devices; the admin lists all and filters by merchant', async () => {
    const forged = { headers: { 'X-MerchantID': String(other.merchant_id), 'X-UserLevel': '1' } };
    const listA = await t.json<Page<Device>>(URL, as(a, forged));
    expect(listA.body.total).toBe(6);
    expect(listA.body.items.every((d) => d.merchant_id === 1)).toBe(true);
    const listB = await t.json<Page<Device>>(URL, as(b));
    expect(listB.body.items.map((d) => d.id)).toEqual([bDevice.id]);
    // A merchant asking for another merchant's devices gets none (the filter narrows, never widens, the scope).
    expect((await t.json<Page<Device>>(`${URL}?merchant_id=1`, as(b))).body.total).toBe(0);
    expect(bDevice.serial).toBe(`SG00${other.merchant_id}-00001`);
    const all = await t.json<Page<Device>>(URL, as(admin));
    expect(all.body.total).toBe(7);
    const onlyB = await t.json<Page<Device>>(`${URL}?merchant_id=${other.merchant_id}`, as(admin));
    expect(onlyB.body.items.map((d) => d.id)).toEqual([bDevice.id]);
    // Each row names its merchant, so the admin's unfiltered list says whose device it is.
    const names = new Map(all.body.items.map((d) => [d.merchant_id, d.merchant_name]));
    expect(Object.fromEntries(names)).toEqual({ 1: '星河共享自助', [other.merchant_id]: '乙方自助' });
    expect(bDevice.merchant_name).toBe('乙方自助');
  });

  it('options: each merchant chooses among its own venues; every model, retired ones marked', async () => {
    const optA = await t.json<DeviceOptions>(`${URL}/options`, as(a, { headers: { 'X-MerchantID': '2' } }));
    expect(optA.body.venues.map((v) => v.name)).toEqual(['星河广场店', '滨江社区店']);
    expect(optA.body.products.map((p) => [p.name, p.status])).toEqual([
      ['智能充电桩', 'active'],
      ['共享按摩椅', 'active'],
    ]);
    const optB = await t.json<DeviceOptions>(`${URL}/options`, as(b));
    expect(optB.body.venues.map((v) => v.id)).toEqual([other.venue_id]);
    const optAdmin = await t.json<DeviceOptions>(
      `${URL}/options?merchant_id=${other.merchant_id}`,
      as(admin),
    );
    expect(optAdmin.body.venues.map((v) => v.id)).toEqual([other.venue_id]);
    expect((await t.json<DeviceOptions>(`${URL}/options`, as(admin))).body.venues).toHaveLength(3);
  });

  it("another merchant's device or venue answers 404 on every read and write, forged headers or not", async () => {
    const before = await snapshot(t.deps.db);
    const forged = { 'X-MerchantID': String(other.merchant_id), 'X-UserLevel': '1' };
    const calls: [string, RequestInit][] = [
      [`${URL}/${bDevice.id}`, {}],
      [`${URL}/${bDevice.id}`, send('PUT', { name: '抢来的' })],
      [`${URL}/${bDevice.id}`, send('PUT', { status: 'disabled' })],
      [`${URL}/1`, send('PUT', { venue_id: other.venue_id })],
      [URL, send('POST', { venue_id: other.venue_id, product_id: 1, name: 'x' })],
      [URL, send('POST', { venue_id: other.venue_id, product_id: 1, count: 3, name_prefix: 'x' })],
    ];
    for (const [path, init] of calls) {
      const res = await t.request(
        path,
        as(a, { ...init, headers: { ...forged, ...(init.headers as Record<string, string>) } }),
      );
      expect(res.status, `${init.method ?? 'GET'} ${path}`).toBe(404);
    }
    // Even the admin cannot move a device to another merchant's venue.
    const cross = await t.request(`${URL}/1`, as(admin, send('PUT', { venue_id: other.venue_id })));
    expect(cross.status).toBe(404);
    expect(await snapshot(t.deps.db)).toEqual(before);
  });

  it('partners and employees get 403, no token 401', async () => {
    for (const who of ['partner', 'employee']) {
      const token = await t.login(who);
      expect((await t.request(URL, as(token))).status).toBe(403);
      expect((await t.request(`${URL}/1`, as(token, send('PUT', { name: 'x' })))).status).toBe(403);
    }
    expect((await t.request(URL)).status).toBe(401);
  });
});

describe('bad input', () => {
  it('is a 400 naming the fields and changes nothing (property-based)', async () => {
    const before = await snapshot(t.deps.db);
    const badId = fc.constantFrom(0, -1, 1.5, '1', null, true, [1], 2 ** 31, 'abc');
    const bad = fc.oneof(
      fc.record({ venue_id: badId, product_id: fc.constant(1), name: fc.constant('ok') }),
      fc.record({ venue_id: fc.constant(1), product_id: badId, name: fc.constant('ok') }),
      fc.record({
        venue_id: fc.constant(1),
        product_id: fc.constant(1),
        name: fc.constantFrom('', '   ', 'x'.repeat(65), 12, null),
      }),
      fc.record({
        venue_id: fc.constant(1),
        product_id: fc.constant(1),
        name_prefix: fc.constant('批量'),
        count: fc.constantFrom(0, -3, 2.5, 201, 100_000, '10', null),
      }),
      fc.record({
        venue_id: fc.constant(1),
        product_id: fc.constant(1),
        count: fc.constant(3),
        name_prefix: fc.constantFrom('', '  ', 'y'.repeat(49), 7),
      }),
      fc.record({
        venue_id: fc.constant(1),
        product_id: fc.constant(1),
        name: fc.constant('ok'),
        serial: fc.constantFrom('a', 'has space', '中文序列', 'x'.repeat(33), '-lead'),
      }),
      fc.record({ venue_id: fc.constant(1), product_id: fc.constant(1) }),
      fc.record({
        venue_id: fc.constant(1),
        product_id: fc.constant(1),
        name: fc.constant('ok'),
        extra: fc.jsonValue(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (body) => {
        const res = await t.json<{ code: string; details: Record<string, string> }>(
          URL,
          as(a, send('POST', body)),
        );
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(Object.keys(res.body.details).length).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
    const badUpdate = fc.oneof(
      fc.record({ status: fc.constantFrom('gone', 'idle', 'running', 1, null) }),
      fc.record({ venue_id: badId }),
      fc.record({ product_id: badId }),
      fc.record({ name: fc.constantFrom('', 'z'.repeat(65), false) }),
      fc.record({ serial: fc.constant('NEW-1') }),
    );
    await fc.assert(
      fc.asyncProperty(badUpdate, async (body) => {
        const res = await t.json<{ code: string }>(`${URL}/1`, as(a, send('PUT', body)));
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }),
      { numRuns: 40 },
    );
    for (const id of ['0', 'abc', '1.5', '99999999999']) {
      expect((await t.request(`${URL}/${id}`, as(a, send('PUT', { name: 'x' })))).status).toBe(400);
    }
    expect((await t.request(`${URL}/9999`, as(a, send('PUT', { name: 'x' })))).status).toBe(404);
    for (const q of [
      '?status=gone',
      '?online=yes',
      '?venue_id=0',
      '?page_size=1000',
      `?q=${'q'.repeat(65)}`,
    ]) {
      expect((await t.request(`${URL}${q}`, as(a))).status, q).toBe(400);
    }
    const text = await t.request(
      URL,
      as(a, { method: 'POST', body: 'name=x', headers: { 'content-type': 'text/plain' } }),
    );
    expect(text.status).toBe(415);
    const nul = await t.request(URL, as(a, send('POST', { venue_id: 1, product_id: 1, name: 'a\u0000b' })));
    expect(nul.status).toBe(400);
    expect(await snapshot(t.deps.db)).toEqual(before);
  });
});
