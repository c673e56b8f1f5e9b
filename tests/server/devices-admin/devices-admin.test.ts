/**
 * `/backend/merchant/devices` against the real app and database: list with filters, search, paging and what runs
 * now; add one or a batch with unique generated serials; edit, move (the pay link changes), disable and enable;
 * audit rows in the same transaction; a retired model or a busy device refused with 409.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { Device } from '../../../src/domain/devices.schema';
import { audit_log, device_sessions, devices, products } from '../../../server/db/schema';
import { createMember, fundMember, payFromWallet } from '../device-sessions/devices-fixtures';
import { createTestApp, type TestApp } from '../test-app';
import { as, send, snapshot } from './helpers';

let t: TestApp;
let merchant: string;
const URL = '/backend/merchant/devices';
beforeAll(async () => {
  t = await createTestApp({ env: { PUBLIC_URL: 'https://scan.example.com' } });
  merchant = await t.login('merchant');
});
afterAll(async () => t?.close());

const list = async (query = '') => t.json<Page<Device>>(`${URL}${query}`, as(merchant));

describe('device list', () => {
  it('lists the merchant devices with names, pay links and filters', async () => {
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body.total).toBe(6);
    expect(body.items[0]).toMatchObject({
      id: 1,
      name: '广场 1 号充电桩',
      serial: 'XH-CP-0001',
      status: 'idle',
      online: false,
      venue_id: 1,
      venue_name: '星河广场店',
      product_id: 1,
      product_name: '智能充电桩',
      pay_url: 'https://scan.example.com/user/pay?device_id=1&venue_id=1',
      session: null,
    });
    expect((await list('?venue_id=2')).body.items.map((d) => d.id)).toEqual([4, 5, 6]);
    expect((await list('?product_id=2')).body.items.map((d) => d.id)).toEqual([3, 6]);
    expect((await list(`?q=${encodeURIComponent('按摩椅 B')}`)).body.items.map((d) => d.id)).toEqual([6]);
    expect((await list('?q=mc-0001')).body.items.map((d) => d.id)).toEqual([3]);
    expect((await list('?q=%25')).body.total).toBe(0);
    const paged = await list('?page=2&page_size=4');
    expect(paged.body).toMatchObject({ total: 6, page: 2, page_size: 4 });
    expect(paged.body.items.map((d) => d.id)).toEqual([5, 6]);
  });

  it('online means a heartbeat under 90 s old; the filter agrees with the flag', async () => {
    const now = t.deps.now().getTime();
    await t.deps.db
      .update(devices)
      .set({ last_heartbeat_at: new Date(now - 10_000) })
      .where(eq(devices.id, 2));
    await t.deps.db
      .update(devices)
      .set({ last_heartbeat_at: new Date(now - 95_000) })
      .where(eq(devices.id, 3));
    const online = await list('?online=true');
    expect(online.body.items.map((d) => [d.id, d.online])).toEqual([[2, true]]);
    const offline = await list('?online=false');
    expect(offline.body.items.map((d) => d.id)).toEqual([1, 3, 4, 5, 6]);
    expect(offline.body.items.every((d) => !d.online)).toBe(true);
  });

  it('shows what runs now: order number, end and minutes left', async () => {
    const member = await createMember(t.deps.db);
    await fundMember(t.deps.db, member, 1, 10_000);
    const now = t.deps.now();
    const { order, session_id } = await payFromWallet(t.deps.db, member, 5, now);
    const starting = await t.json<Device>(`${URL}/5`, as(merchant));
    expect(starting.body.session).toMatchObject({
      order_no: order.order_no,
      status: 'starting',
      ends_at: null,
    });
    const ends = new Date(now.getTime() + 29.5 * 60_000);
    await t.deps.db
      .update(device_sessions)
      .set({ status: 'running', started_at: now, ends_at: ends })
      .where(eq(device_sessions.id, session_id));
    await t.deps.db.update(devices).set({ status: 'running' }).where(eq(devices.id, 5));
    const running = await list('?status=running');
    expect(running.body.items).toHaveLength(1);
    expect(running.body.items[0]!.session).toEqual({
      order_no: order.order_no,
      status: 'running',
      ends_at: ends.toISOString(),
      minutes_left: 30,
    });
    // A busy device cannot move: its session's order belongs to the venue it was paid at.
    const before = await snapshot(t.deps.db);
    const move = await t.json<{ code: string }>(`${URL}/5`, as(merchant, send('PUT', { venue_id: 1 })));
    expect(move.status).toBe(409);
    expect(move.body.code).toBe('DEVICE_BUSY');
    expect(await snapshot(t.deps.db)).toEqual(before);
  });
});

describe('device writes', () => {
  const auditsOf = (id: number) =>
    t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.entity, 'devices'), eq(audit_log.entity_id, String(id))))
      .orderBy(audit_log.id);

  it('adds one device with a generated serial, or with the serial printed on it', async () => {
    const one = await t.json<Device>(
      URL,
      as(merchant, send('POST', { venue_id: 2, product_id: 1, name: '  社区 3 号充电桩 ' })),
    );
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({
      name: '社区 3 号充电桩',
      serial: 'SG001-00001',
      venue_id: 2,
      status: 'idle',
    });
    expect(one.body.pay_url).toBe(`https://scan.example.com/user/pay?device_id=${one.body.id}&venue_id=2`);
    const typed = await t.json<Device>(
      URL,
      as(merchant, send('POST', { venue_id: 2, product_id: 1, name: '带序列号', serial: 'FAB-778' })),
    );
    expect(typed.body.serial).toBe('FAB-778');
    const before = await snapshot(t.deps.db);
    const dup = await t.json<{ code: string; details: Record<string, string> }>(
      URL,
      as(merchant, send('POST', { venue_id: 2, product_id: 1, name: '重复', serial: 'XH-CP-0001' })),
    );
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('SERIAL_TAKEN');
    expect(dup.body.details.serial).toBeTruthy();
    expect(await snapshot(t.deps.db)).toEqual(before);
    const audits = await auditsOf(one.body.id);
    expect(audits.map((a) => a.action)).toEqual(['devices.create']);
    expect(audits[0]!).toMatchObject({ merchant_id: 1, details: { after: { serial: 'SG001-00001' } } });
  });

  it('adds a batch: numbered names, unique serials continuing the sequence, one audit row each', async () => {
    const res = await t.json<{ items: Device[] }>(
      URL,
      as(merchant, send('POST', { venue_id: 1, product_id: 2, count: 5, name_prefix: '按摩椅 ', start: 3 })),
    );
    expect(res.status).toBe(201);
    expect(res.body.items.map((d) => d.name)).toEqual([
      '按摩椅 3',
      '按摩椅 4',
      '按摩椅 5',
      '按摩椅 6',
      '按摩椅 7',
    ]);
    expect(res.body.items.map((d) => d.serial)).toEqual([
      'SG001-00002',
      'SG001-00003',
      'SG001-00004',
      'SG001-00005',
      'SG001-00006',
    ]);
    const again = await t.json<{ items: Device[] }>(
      URL,
      as(merchant, send('POST', { venue_id: 1, product_id: 2, count: 3, name_prefix: 'X' })),
    );
    const all = await t.deps.db.select({ serial: devices.serial }).from(devices);
    expect(new Set(all.map((d) => d.serial)).size).toBe(all.length);
    expect(again.body.items.map((d) => d.serial)[0]).toBe('SG001-00007');
    for (const d of res.body.items) {
      expect((await auditsOf(d.id)).map((a) => [a.action, (a.details as { batch?: number }).batch])).toEqual([
        ['devices.create', 5],
      ]);
    }
  });

  it('two batches at once never share a serial', async () => {
    const body = { venue_id: 2, product_id: 1, count: 20, name_prefix: '并发' };
    const [a, b] = await Promise.all([
      t.json<{ items: Device[] }>(URL, as(merchant, send('POST', body))),
      t.json<{ items: Device[] }>(URL, as(merchant, send('POST', body))),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const serials = [...a.body.items, ...b.body.items].map((d) => d.serial);
    expect(new Set(serials).size).toBe(40);
  });

  it('edits, moves (new pay link), disables and enables, each with an audit row', async () => {
    const path = `${URL}/2`;
    const renamed = await t.json<Device>(
      path,
      as(merchant, send('PUT', { name: '广场 2 号快充', product_id: 2 })),
    );
    expect(renamed.body).toMatchObject({ name: '广场 2 号快充', product_id: 2, product_name: '共享按摩椅' });
    const moved = await t.json<Device>(path, as(merchant, send('PUT', { venue_id: 2 })));
    expect(moved.body).toMatchObject({ venue_id: 2, venue_name: '滨江社区店' });
    expect(moved.body.pay_url).toBe('https://scan.example.com/user/pay?device_id=2&venue_id=2');
    const disabled = await t.json<Device>(path, as(merchant, send('PUT', { status: 'disabled' })));
    expect(disabled.body.status).toBe('disabled');
    const enabled = await t.json<Device>(path, as(merchant, send('PUT', { status: 'enabled' })));
    expect(enabled.body.status).toBe('idle');
    const audits = await auditsOf(2);
    expect(audits.map((a) => a.action)).toEqual([
      'devices.update',
      'devices.move',
      'devices.disable',
      'devices.enable',
    ]);
    expect(audits[1]!.details).toMatchObject({ before: { venue_id: 1 }, after: { venue_id: 2 } });
    expect(audits.every((a) => a.account_id !== null && a.merchant_id === 1)).toBe(true);
  });

  it('refuses a retired model (409) but keeps it on a device that already has it', async () => {
    const [p] = await t.deps.db
      .insert(products)
      .values({ name: '旧型号', category: 'other', status: 'retired' })
      .returning();
    const before = await snapshot(t.deps.db);
    const add = await t.json<{ code: string }>(
      URL,
      as(merchant, send('POST', { venue_id: 1, product_id: p!.id, name: 'x' })),
    );
    expect([add.status, add.body.code]).toEqual([409, 'PRODUCT_RETIRED']);
    const missing = await t.json<{ code: string }>(
      URL,
      as(merchant, send('POST', { venue_id: 1, product_id: 999, name: 'x' })),
    );
    expect([missing.status, missing.body.code]).toEqual([404, 'PRODUCT_NOT_FOUND']);
    expect(await snapshot(t.deps.db)).toEqual(before);
    await t.deps.db.update(devices).set({ product_id: p!.id }).where(eq(devices.id, 4));
    const rename = await t.json<Device>(
      `${URL}/4`,
      as(merchant, send('PUT', { name: '留旧型号', product_id: p!.id })),
    );
    expect(rename.status).toBe(200);
  });
});
