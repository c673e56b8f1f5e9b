/**
 * Public device endpoints over the real app: the fixed shapes of docs/decisions.md D6, 404s and 400s, and the online flag
 * following the simulator's heartbeats (and its offline switch through the sandbox control endpoint).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicDevice, PublicVenue, ServicePrice } from '../../../src/domain/api';
import { service_prices } from '../../../server/db/schema';
import { createTestApp, postJson, type TestWorld, WORLD } from '../test-app';

let t: TestWorld;
beforeAll(async () => {
  t = await createTestApp(WORLD);
});
afterAll(async () => {
  await t?.close();
});

describe('GET /backend/api/devices/:id', () => {
  it('answers the fixed shape for a seeded device, online thanks to the simulator', async () => {
    const { status, body } = await t.json<PublicDevice>('/backend/api/devices/1');
    expect(status).toBe(200);
    expect(body).toEqual({
      id: 1,
      name: '广场 1 号充电桩',
      serial: 'XH-CP-0001',
      status: 'idle',
      online: true,
      venue_id: 1,
      merchant_id: 1,
      product: { id: 1, name: '智能充电桩' },
    });
  });

  it('404 for a missing device, 400 for ids that are not positive integers', async () => {
    const missing = await t.json<{ code: string; message: string }>('/backend/api/devices/999999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', message: '设备不存在' });
    for (const bad of ['0', '-1', 'abc', '1.5', '99999999999', '1e3']) {
      const r = await t.json<{ code: string }>(`/backend/api/devices/${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('shows offline when the device stops reporting (sandbox control endpoint)', async () => {
    const set = await t.json('/backend/sandbox/devices/2/mode', postJson({ mode: 'offline' }));
    expect(set.status).toBe(200);
    const off = await t.json<PublicDevice>('/backend/api/devices/2');
    expect(off.body.online).toBe(false);
    expect(off.body.status).toBe('offline');
    await t.json('/backend/sandbox/devices/2/mode', postJson({ mode: 'normal' }));
    const on = await t.json<PublicDevice>('/backend/api/devices/2');
    expect(on.body.online).toBe(true);
    expect(on.body.status).toBe('idle');
    // Without a heartbeat for 90 s a device counts as offline.
    t.advance(91_000);
    try {
      const stale = await t.json<PublicDevice>('/backend/api/devices/3');
      expect(stale.body.online).toBe(false);
      expect(stale.body.status).toBe('offline');
    } finally {
      t.advance(-91_000);
    }
  });

  it('the control endpoint validates its input', async () => {
    expect((await t.json('/backend/sandbox/devices/1/mode', postJson({ mode: 'explode' }))).status).toBe(400);
    expect((await t.json('/backend/sandbox/devices/abc/mode', postJson({ mode: 'normal' }))).status).toBe(
      400,
    );
    expect((await t.json('/backend/sandbox/devices/999/mode', postJson({ mode: 'normal' }))).status).toBe(
      404,
    );
    expect((await t.json('/backend/sandbox/devices/1/mode', postJson('not json'))).status).toBe(400);
  });
});

describe('GET /backend/api/venues/:id', () => {
  it('answers the fixed shape, 404 and 400', async () => {
    const { status, body } = await t.json<PublicVenue>('/backend/api/venues/1');
    expect(status).toBe(200);
    expect(body).toEqual({
      id: 1,
      name: '星河广场店',
      address: '杭州市西湖区文三路 88 号星河广场 1 楼',
      merchant: { id: 1, name: '星河共享自助', status: 'active' },
    });
    const missing = await t.json<{ code: string; message: string }>('/backend/api/venues/424242');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', message: '场地不存在' });
    expect((await t.json('/backend/api/venues/x')).status).toBe(400);
  });
});

describe('GET /backend/api/venue-service-prices', () => {
  it('lists the active prices of the venue, sorted', async () => {
    const { status, body } = await t.json<{ items: ServicePrice[] }>(
      '/backend/api/venue-service-prices?venue_id=1',
    );
    expect(status).toBe(200);
    expect(body.items.map((p) => [p.name, p.minutes, p.price_fen])).toEqual([
      ['30 分钟', 30, 200],
      ['60 分钟', 60, 350],
      ['120 分钟', 120, 600],
    ]);
    expect(Object.keys(body.items[0]!).sort()).toEqual(['id', 'minutes', 'name', 'price_fen']);

    const hide = body.items[1]!.id;
    await t.deps.db.update(service_prices).set({ active: false }).where(eq(service_prices.id, hide));
    const after = await t.json<{ items: ServicePrice[] }>('/backend/api/venue-service-prices?venue_id=1');
    expect(after.body.items.map((p) => p.id)).not.toContain(hide);
    await t.deps.db.update(service_prices).set({ active: true }).where(eq(service_prices.id, hide));
  });

  it('400 without or with a bad venue_id, 404 for an unknown venue', async () => {
    for (const q of ['', '?venue_id=', '?venue_id=abc', '?venue_id=-3', '?venue_id=1.5']) {
      const r = await t.json<{ code: string; details?: Record<string, string> }>(
        `/backend/api/venue-service-prices${q}`,
      );
      expect(r.status, q).toBe(400);
      expect(r.body.details).toHaveProperty('venue_id');
    }
    expect((await t.json('/backend/api/venue-service-prices?venue_id=777')).status).toBe(404);
  });
});
