/**
 * Device credentials on an external Mosquitto with its dynamic security plugin (MQTT_DYNSEC=true; D25): the app
 * with npm start's wiring, its MQTT_URL user the admin `mosquitto_ctrl dynsec init` made, and no device known to
 * the broker until staff issue a secret over HTTP. A new device connects with its new secret; a rotation refuses the
 * old one; a disabled device is refused; a device cannot use another's topics; a secret committed but never pushed
 * (a crash between commit and push) leaves the device refused after a start-up; no secret reaches a log line.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Device } from '../../../src/domain/devices.schema';
import type { DeviceSecretIssued } from '../../../src/domain/device-secret.schema';
import { devices } from '../../../server/db/schema';
import { rotateDeviceSecret } from '../../../server/services/devices/device-secrets';
import { createDevicesForDeps } from '../../../server/services/devices/devices.start-hook';
import type { MqttDevicesGateway } from '../../../server/services/devices/mqtt/mqtt-devices';
import { SERVER_USERNAME } from '../../../server/services/devices/mqtt/protocol';
import { createTestApp, type TestApp } from '../test-app';
import { MOSQUITTO, dynsecAvailable, startMosquittoDynsec, type Mosquitto } from './mosquitto';
import { json, rawDevice, until } from './mqtt-harness';
import { BAD_CREDENTIALS, grant, refusal } from './mqtt-refusals';

const REFUSED = BAD_CREDENTIALS.mosquitto;
let mosq: Mosquitto;
let t: TestApp;
let token: string;
const logged: string[] = [];
const issuedSecrets: string[] = [];

const auth = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
});
const gw = () => t.deps.devices!.gateway as MqttDevicesGateway;

async function issue(id: number) {
  const res = await t.json<DeviceSecretIssued>(
    `/backend/merchant/devices/${id}/secret`,
    auth({ method: 'POST' }),
  );
  expect(res.status).toBe(200);
  issuedSecrets.push(res.body.secret);
  return res.body.secret;
}

async function createDevice(serial: string): Promise<Device> {
  const { db } = t.deps;
  // Beside a demo device of the signed-in merchant.
  const [mine] = await db.select().from(devices).where(eq(devices.serial, 'XH-CP-0001'));
  const res = await t.json<Device>(
    '/backend/merchant/devices',
    auth({
      method: 'POST',
      body: JSON.stringify({
        venue_id: mine!.venue_id,
        product_id: mine!.product_id,
        name: '测试按摩椅',
        serial,
      }),
    }),
  );
  expect(res.status).toBe(201);
  return res.body;
}

const connect = (serial: string, secret: string, level: 4 | 5 = 4) =>
  rawDevice(mosq.url, serial, secret, { protocolVersion: level });
const closed = (c: MqttClient) => until(async () => !c.connected, 'the connection dropped');

if (!dynsecAvailable() && process.env.CI) {
  describe('Mosquitto with dynamic security', () => {
    it('is installed (CI installs mosquitto in .ci/run)', () => {
      throw new Error(`${MOSQUITTO} or its dynamic security plugin is missing: apt-get install -y mosquitto`);
    });
  });
} else if (!dynsecAvailable()) {
  describe.skip(`Mosquitto's dynamic security plugin not installed (${MOSQUITTO})`, () => {
    it('keeps device credentials in the broker', () => {});
  });
} else {
  beforeAll(async () => {
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : String(a))).join(' '));
      });
    }
    const admin = randomBytes(24).toString('base64url');
    mosq = await startMosquittoDynsec(SERVER_USERNAME, admin);
    t = await createTestApp({
      env: {
        MQTT_URL: `mqtt://${SERVER_USERNAME}:${admin}@127.0.0.1:${mosq.port}`,
        MQTT_DYNSEC: true,
        LOG_REQUESTS: true,
      },
      devices: true,
    });
    token = await t.login('merchant');
  });
  afterAll(async () => {
    await t?.close();
    await mosq?.close();
    vi.restoreAllMocks();
  });

  describe('dynamic security on Mosquitto', () => {
    let device: Device;
    let secret: string;

    it('a device created through the API connects with its new secret, to its own topics only', async () => {
      device = await createDevice('DS-0001');
      await expect(connect('DS-0001', 'not-yet-a-secret-of-this-device-0000000000')).rejects.toThrow();
      secret = await issue(device.id);
      const d = await connect('DS-0001', secret, 5);
      expect(await grant(d, 'scango/DS-0001/cmd')).toBe(1);
      await d.publishAsync('scango/DS-0001/status', json({ online: true }), { qos: 1, retain: true });
      await until(
        async () =>
          (await t.deps.db.select().from(devices).where(eq(devices.id, device.id)))[0]!.status === 'idle',
        'online',
      );
      // The server's user may command it (the role scango-server it was given at start-up).
      const heard = new Promise<string>((resolve) => d.once('message', (_t, p) => resolve(p.toString())));
      await gw().client!.start('DS-0001', 5, 'start-4711');
      expect(JSON.parse(await heard)).toEqual({ cmd: 'start', session_id: 4711, minutes: 5 });
      // Another device's topics: the subscription and the publish are refused (0x87 under MQTT 5).
      expect(await grant(d, 'scango/XH-CP-0001/cmd')).toBe(128);
      expect(await refusal(d.publishAsync('scango/XH-CP-0001/ack', json({}), { qos: 1 }))).toBe(0x87);
      expect(await refusal(d.publishAsync('scango/XH-CP-0001/status', json({}), { qos: 1 }))).toBe(0x87);
      await d.endAsync();
    });

    it('after a rotation the old secret is refused and the new one works', async () => {
      const old = await connect('DS-0001', secret);
      const fresh = await issue(device.id);
      await closed(old);
      expect(await refusal(connect('DS-0001', secret))).toBe(REFUSED[4]);
      expect(await refusal(connect('DS-0001', secret, 5))).toBe(REFUSED[5]);
      expect(await refusal(connect('DS-0001', fresh))).toBe(0);
      secret = fresh;
    });

    it('a disabled device is refused, and connects again once enabled', async () => {
      const live = await connect('DS-0001', secret);
      const put = (status: string) =>
        t.request(
          `/backend/merchant/devices/${device.id}`,
          auth({ method: 'PUT', body: JSON.stringify({ status }) }),
        );
      expect((await put('disabled')).status).toBe(200);
      await closed(live);
      expect(await refusal(connect('DS-0001', secret))).toBe(REFUSED[4]);
      expect((await put('enabled')).status).toBe(200);
      expect(await refusal(connect('DS-0001', secret))).toBe(0);
    });

    it('a secret committed but never pushed leaves the device refused after a start-up', async () => {
      // A crash between the commit and the push: the DB has a new secret the broker never heard of.
      await rotateDeviceSecret(t.deps.db, device.id, t.deps.now());
      const again = createDevicesForDeps(t.deps, { simulator: false });
      const stop = await again.start();
      try {
        expect(await refusal(connect('DS-0001', secret))).toBe(REFUSED[4]);
        // Staff issue a new secret once they see the device offline: it works.
        secret = await issue(device.id);
        expect(await refusal(connect('DS-0001', secret))).toBe(0);
      } finally {
        await stop();
      }
    });

    it('the reconciliation removes the client of a device that is gone', async () => {
      const other = await createDevice('DS-0002');
      const s = await issue(other.id);
      expect(await refusal(connect('DS-0002', s))).toBe(0);
      await t.deps.db.delete(devices).where(eq(devices.id, other.id));
      expect(await gw().dynsec!.reconcile()).toMatchObject({ deleted: 1, disabled: 0, enabled: 0 });
      expect(await refusal(connect('DS-0002', s))).toBe(REFUSED[4]);
      // Nothing else moved: DS-0001 still connects.
      expect(await refusal(connect('DS-0001', secret))).toBe(0);
      expect(await gw().dynsec!.reconcile()).toMatchObject({ deleted: 0, disabled: 0, enabled: 0 });
    });

    it('a push that fails answers 502 without the secret and leaves the old secret refused', async () => {
      await gw().dynsec!.close();
      try {
        const res = await t.request(
          `/backend/merchant/devices/${device.id}/secret`,
          auth({ method: 'POST' }),
        );
        expect(res.status).toBe(502);
        const body = (await res.json()) as { code: string; secret?: string };
        expect(body.code).toBe('BROKER_SYNC_FAILED');
        expect(body.secret).toBeUndefined();
      } finally {
        await gw().dynsec!.open();
      }
      // Reopening reconciled: the broker's password is not the device's secret any more, so the client is disabled.
      expect(await refusal(connect('DS-0001', secret))).toBe(REFUSED[4]);
    });

    it('no secret appears in a log line', () => {
      expect(logged.some((l) => l.includes('/secret'))).toBe(true);
      expect(issuedSecrets.length).toBeGreaterThanOrEqual(4);
      for (const s of issuedSecrets) expect(logged.filter((l) => l.includes(s))).toEqual([]);
    });
  });
}
