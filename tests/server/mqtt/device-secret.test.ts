/**
 * Device secrets on the staff page, over HTTP on the real app with the embedded broker: a rotation answers the new
 * secret once (no-store), stores only its hash, drops the device's connection so the old secret stops working at
 * once, and the simulator lets go of the device (the secret is for real hardware); with npm start's wiring the
 * simulator writes no secret to the DB and a later start leaves an issued one alone. The secret appears in no list or detail
 * answer, no audit row and no log line (every console call of the file is captured, with request logging on).
 */
import { eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceCredentials, DeviceSecretIssued } from '../../../src/domain/device-secret.schema';
import { audit_log, devices } from '../../../server/db/schema';
import { hashDeviceSecret } from '../../../server/services/devices/device-secrets';
import { createDevicesForDeps } from '../../../server/services/devices/devices.start-hook';
import type { MqttDevicesGateway } from '../../../server/services/devices/mqtt/mqtt-devices';
import { createTestApp } from '../test-app';
import { createOtherMerchant } from '../devices-admin/helpers';
import {
  deviceBySerial,
  json,
  pause,
  rawDevice,
  startMqttWorld,
  until,
  type MqttWorld,
} from './mqtt-harness';

const SERIAL = 'XH-MC-0002';
let w: MqttWorld;
let merchant: string;
const logged: string[] = [];

beforeAll(async () => {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : String(a))).join(' '));
    });
  }
  w = await startMqttWorld('embedded', { LOG_REQUESTS: true });
  merchant = await w.t.login('merchant');
});
afterAll(async () => {
  await w?.close();
  vi.restoreAllMocks();
});

const auth = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { authorization: `Bearer ${token}`, ...init.headers },
});

describe('device secrets', () => {
  let issued: DeviceSecretIssued;

  it('shows the serial and broker, never a secret; rotating answers the new secret once', async () => {
    const id = (await deviceBySerial(w, SERIAL)).id;
    const before = await w.t.json<DeviceCredentials>(
      `/backend/merchant/devices/${id}/credentials`,
      auth(merchant),
    );
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ device_id: id, serial: SERIAL, username: SERIAL, has_secret: true });
    expect(before.body.broker_url).toMatch(/^mqtt:\/\/[^@]+:\d+$/);
    expect(JSON.stringify(before.body)).not.toContain(w.secrets.get(SERIAL)!);

    const old = await rawDevice(w.url, SERIAL, w.secrets.get(SERIAL)!);
    const res = await w.t.json<DeviceSecretIssued>(
      `/backend/merchant/devices/${id}/secret`,
      auth(merchant, { method: 'POST' }),
    );
    expect(res.status).toBe(200);
    expect(res.res.headers.get('cache-control')).toBe('no-store');
    issued = res.body;
    expect(issued.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(issued.secret).not.toBe(w.secrets.get(SERIAL));
    const row = await deviceBySerial(w, SERIAL);
    expect(row.secret_hash).toBe(hashDeviceSecret(issued.secret));

    // The old secret stops working at once: its connection is dropped and a new connect refused.
    await until(async () => !old.connected, 'the old connection dropped');
    await expect(rawDevice(w.url, SERIAL, w.secrets.get(SERIAL)!)).rejects.toThrow(/username|authori/i);
    const fresh = await rawDevice(w.url, SERIAL, issued.secret);
    expect(fresh.connected).toBe(true);
    await fresh.endAsync();
    // The secret is for real hardware now: the simulator let go of the device, which the will marked offline.
    await w.devices.settle();
    expect((await deviceBySerial(w, SERIAL)).status).toBe('offline');
    await pause(300);
    expect((await deviceBySerial(w, SERIAL)).status).toBe('offline');
    const creds = await w.t.json<DeviceCredentials>(
      `/backend/merchant/devices/${id}/credentials`,
      auth(merchant),
    );
    expect(creds.body).toMatchObject({ has_secret: true, simulated: false });
  });

  it('a device disabled on its page is dropped and refused by the embedded broker, and connects once enabled', async () => {
    const id = (await deviceBySerial(w, SERIAL)).id;
    const put = (status: string) =>
      w.t.request(
        `/backend/merchant/devices/${id}`,
        auth(merchant, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ status }),
        }),
      );
    const live = await rawDevice(w.url, SERIAL, issued.secret);
    expect((await put('disabled')).status).toBe(200);
    await until(async () => !live.connected, 'the disabled device dropped');
    await expect(rawDevice(w.url, SERIAL, issued.secret)).rejects.toThrow(/username|authori/i);
    expect((await put('enabled')).status).toBe(200);
    const back = await rawDevice(w.url, SERIAL, issued.secret);
    expect(back.connected).toBe(true);
    await back.endAsync();
    await live.endAsync();
  });

  it('npm start’s wiring: the simulator writes no secret; an issued one releases the device and stays', async () => {
    const t = await createTestApp({ devices: { online: true } });
    try {
      const { db } = t.deps;
      const token = await t.login('merchant');
      const hashes = async () =>
        (await db.select({ serial: devices.serial }).from(devices).where(isNotNull(devices.secret_hash))).map(
          (d) => d.serial,
        );
      // Every device is simulated and online, with secrets the simulator holds in memory only.
      expect(await hashes()).toEqual([]);
      const row = (await db.select().from(devices).where(eq(devices.serial, 'XH-CP-0003')))[0]!;
      expect(row.status).toBe('idle');
      const creds = await t.json<DeviceCredentials>(
        `/backend/merchant/devices/${row.id}/credentials`,
        auth(token),
      );
      expect(creds.body).toMatchObject({ has_secret: false, simulated: true });
      const res = await t.json<DeviceSecretIssued>(
        `/backend/merchant/devices/${row.id}/secret`,
        auth(token, { method: 'POST' }),
      );
      expect(res.body).toMatchObject({ has_secret: true, simulated: false });
      await t.devices.settle();
      // The simulator let go of it (its will: offline), and says so.
      const status = async () => (await db.select().from(devices).where(eq(devices.id, row.id)))[0]!;
      await until(async () => (await status()).status === 'offline', 'the will');
      const after = await t.json<DeviceCredentials>(
        `/backend/merchant/devices/${row.id}/credentials`,
        auth(token),
      );
      expect(after.body).toMatchObject({ has_secret: true, simulated: false });
      const hash = (await status()).secret_hash;

      // Another start of the devices side on this DB (a restart): the issued secret is untouched and not simulated.
      const again = createDevicesForDeps(t.deps, { simulator: { ackDelayMs: 20 } });
      const stopAgain = await again.start();
      try {
        expect(await hashes()).toEqual(['XH-CP-0003']);
        expect((await status()).secret_hash).toBe(hash);
        expect(again.gateway.simulates?.('XH-CP-0003')).toBe(false);
        expect(again.gateway.simulates?.('XH-CP-0001')).toBe(true);
        const url = (again.gateway as MqttDevicesGateway).brokerUrl!;
        const device = await rawDevice(url, 'XH-CP-0003', res.body.secret, { clientId: 'XH-CP-0003' });
        await device.publishAsync('scango/XH-CP-0003/status', json({ online: true }), {
          qos: 1,
          retain: true,
        });
        await until(async () => (await status()).status === 'idle', 'the real device online');
        await device.endAsync();
      } finally {
        await stopAgain();
      }
    } finally {
      await t.close();
    }
  });

  it('another merchant’s device is 404; an employee is refused', async () => {
    const other = await createOtherMerchant(w.t.deps.db);
    const id = (await deviceBySerial(w, SERIAL)).id;
    const otherToken = await w.t.login(other.username);
    expect(
      (await w.t.request(`/backend/merchant/devices/${id}/secret`, auth(otherToken, { method: 'POST' })))
        .status,
    ).toBe(404);
    expect((await w.t.request(`/backend/merchant/devices/${id}/credentials`, auth(otherToken))).status).toBe(
      404,
    );
    const employee = await w.t.login('employee');
    expect(
      (await w.t.request(`/backend/merchant/devices/${id}/secret`, auth(employee, { method: 'POST' })))
        .status,
    ).toBe(403);
    expect(
      (await w.t.request(`/backend/merchant/devices/abc/secret`, auth(merchant, { method: 'POST' }))).status,
    ).toBe(400);
  });

  it('the secret and its hash are in no list or detail answer, audit row or log line', async () => {
    const id = (await deviceBySerial(w, SERIAL)).id;
    const hash = hashDeviceSecret(issued.secret);
    const answers = [
      await w.t.request('/backend/merchant/devices?page_size=100', auth(merchant)),
      await w.t.request(`/backend/merchant/devices/${id}`, auth(merchant)),
      await w.t.request(`/backend/merchant/devices/${id}/credentials`, auth(merchant)),
      await w.t.request(`/backend/api/devices/${id}`),
      await w.t.request('/backend/employee/devices', auth(await w.t.login('employee'))),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain(issued.secret);
      expect(text).not.toContain(hash);
      expect(text).not.toContain('secret_hash');
    }
    const audits = await w.t.deps.db
      .select()
      .from(audit_log)
      .where(eq(audit_log.action, 'devices.secret_rotate'));
    expect(audits).toHaveLength(1);
    expect(audits[0]!.details).toMatchObject({ serial: SERIAL, had_secret: true, was_simulated: true });
    expect(JSON.stringify(audits)).not.toContain(issued.secret);
    // Request lines were logged (so the capture works), and no secret is among them.
    expect(logged.some((l) => l.includes('/secret'))).toBe(true);
    for (const secret of [issued.secret, ...w.secrets.values()]) {
      expect(logged.filter((l) => l.includes(secret))).toEqual([]);
    }
  });
});
