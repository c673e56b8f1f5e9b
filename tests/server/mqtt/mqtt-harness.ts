/**
 * The devices service over a real broker for the MQTT tests: the app on a fresh DB with the demo data, the server's
 * MQTT gateway, and the simulated fleet as MQTT clients, on the embedded broker or on Mosquitto. `rawDevice`
 * connects a hand-driven device (a test plays the hardware), `recorder` collects what the gateway emits.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import type { EnvInput } from '../../../server/env';
import { device_sessions, devices as devicesTable } from '../../../server/db/schema';
import { provisionSecrets, verifyDeviceSecret } from '../../../server/services/devices/device-secrets';
import { createDevicesService, type DevicesService } from '../../../server/services/devices/devices.service';
import type { DeviceGateway, GatewayEvent } from '../../../server/services/devices/gateway';
import {
  createMqttDevicesGateway,
  type MqttDevicesGateway,
} from '../../../server/services/devices/mqtt/mqtt-devices';
import { createMqttGateway } from '../../../server/services/devices/mqtt/mqtt.gateway';
import { noDelay } from '../../../server/services/devices/mqtt/no-delay';
import { offlineWill, SERVER_USERNAME } from '../../../server/services/devices/mqtt/protocol';
import { refundOrder } from '../../../server/services/orders';
import { createTestApp, type TestApp } from '../test-app';
import { startMosquitto, type Mosquitto } from './mosquitto';

export type BrokerKind = 'embedded' | 'mosquitto';
/** The MQTT protocol level devices speak: 4 = MQTT 3.1.1, 5 = MQTT 5. */
export type DeviceLevel = 4 | 5;

export interface MqttWorld {
  kind: BrokerKind;
  /** The protocol level of the simulated fleet (and of `device`). */
  level: DeviceLevel;
  t: TestApp;
  /** The running instance's devices service and gateway (replaced by `restart`). */
  devices: DevicesService;
  gw: MqttDevicesGateway;
  /** Broker URL without credentials. */
  url: string;
  server: { username: string; password: string };
  /** The secret each device was provisioned with. */
  secrets: Map<string, string>;
  /** Serials a test plays by hand: the simulator leaves them alone (also after a restart). */
  byHand: Set<string>;
  /** `rawDevice` on this world's broker at this world's protocol level. */
  device(serial: string, secret: string, opts?: { clientId?: string }): Promise<MqttClient>;
  /**
   * Stops the server's devices side (the embedded broker with it) and starts a new one on the same DB (and, on
   * Mosquitto, the same persistent client id); `whileDown` runs in between.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** A second API instance (its own gateway and scheduler) on the same DB and broker. */
  secondInstance(): Promise<{ devices: DevicesService; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** The server's persistent client id on Mosquitto: a restarted instance finds what was queued for it. */
const SERVER_CLIENT_ID = 'scango-test-server-1';

interface WorldParts {
  kind: BrokerKind;
  t: TestApp;
  server: { username: string; password: string };
  serials: string[];
  secrets: Map<string, string>;
  byHand: Set<string>;
  mosquitto?: Mosquitto;
  ackDelayMs: number;
  level: DeviceLevel;
}

/** The server's gateway with the simulated fleet; `port` pins the embedded broker's port (a restart). */
function fleetGateway(p: WorldParts, port = 0): MqttDevicesGateway {
  const { db } = p.t.deps;
  const shared = p.kind === 'mosquitto';
  return createMqttDevicesGateway({
    now: p.t.deps.now,
    broker: p.mosquitto
      ? {
          embedded: false,
          url: p.mosquitto.url,
          ...p.server,
          shared,
          protocolVersion: 5,
          clientId: SERVER_CLIENT_ID,
        }
      : {
          embedded: true,
          port,
          host: '127.0.0.1',
          serverSecret: p.server.password,
          verifyDevice: (serial, secret) => verifyDeviceSecret(db, serial, secret),
        },
    simulator: {
      listSerials: async () => p.serials.filter((s) => !p.byHand.has(s)),
      secretsFor: async (wanted) => {
        const fresh = await provisionSecrets(
          db,
          wanted.filter((s) => !p.secrets.has(s)),
          p.t.deps.now(),
        );
        for (const [s, v] of fresh) p.secrets.set(s, v);
        return new Map(wanted.filter((s) => p.secrets.has(s)).map((s) => [s, p.secrets.get(s)!]));
      },
      ackDelayMs: p.ackDelayMs,
      heartbeatMs: 60_000,
      protocolVersion: p.level,
    },
  });
}

function serviceOn(p: WorldParts, gateway: DeviceGateway) {
  return createDevicesService({
    db: p.t.deps.db,
    gateway,
    now: p.t.deps.now,
    refundOrder,
    tickMs: 100,
    skipLocked: p.t.deps.dbKind === 'postgres',
  });
}

export async function startMqttWorld(
  kind: BrokerKind,
  env: EnvInput = {},
  opts: { ackDelayMs?: number; level?: DeviceLevel } = {},
): Promise<MqttWorld> {
  const server = { username: SERVER_USERNAME, password: randomBytes(24).toString('base64url') };
  const t = await createTestApp({ env: { MQTT_SERVER_SECRET: server.password, ...env } });
  const { db } = t.deps;
  const serials = (await db.select({ serial: devicesTable.serial }).from(devicesTable)).map((d) => d.serial);
  const secrets = await provisionSecrets(db, serials, t.deps.now());
  const mosquitto =
    kind === 'mosquitto'
      ? await startMosquitto(new Map([...secrets, [server.username, server.password]]))
      : undefined;
  const p: WorldParts = {
    kind,
    t,
    server,
    serials,
    secrets,
    byHand: new Set(),
    mosquitto,
    ackDelayMs: opts.ackDelayMs ?? 20,
    level: opts.level ?? 4,
  };
  const gw = fleetGateway(p);
  const devices = serviceOn(p, gw);
  t.deps.devices = devices;
  let stop = await devices.start();
  const url = gw.brokerUrl!;
  const others: (() => Promise<void>)[] = [];
  const world: MqttWorld = {
    kind,
    level: p.level,
    t,
    devices,
    gw,
    url,
    server,
    secrets,
    byHand: p.byHand,
    device: (serial, secret, o = {}) => rawDevice(url, serial, secret, { ...o, protocolVersion: p.level }),
    async restart(whileDown) {
      const port = world.gw.broker?.port ?? 0;
      await stop();
      await whileDown?.();
      world.gw = fleetGateway(p, port);
      world.devices = serviceOn(p, world.gw);
      t.deps.devices = world.devices;
      stop = await world.devices.start();
    },
    async secondInstance() {
      const shared = kind === 'mosquitto';
      const gateway = createMqttGateway({
        url,
        ...server,
        now: t.deps.now,
        shared,
        protocolVersion: shared ? 5 : 4,
      });
      const second = serviceOn(p, gateway);
      const stopSecond = await second.start();
      others.push(stopSecond);
      return { devices: second, close: stopSecond };
    },
    async close() {
      for (const o of others) await o().catch(() => {});
      await stop();
      await mosquitto?.close();
      await t.close();
    },
  };
  return world;
}

/** A device driven by the test: connects as `serial` with `secret` (and the protocol's last will). */
export async function rawDevice(
  url: string,
  serial: string,
  secret: string,
  opts: { clientId?: string; protocolVersion?: DeviceLevel } = {},
): Promise<MqttClient> {
  const client = await mqtt.connectAsync(url, {
    clientId: opts.clientId ?? `${serial}-test-${randomBytes(3).toString('hex')}`,
    username: serial,
    password: secret,
    protocolVersion: opts.protocolVersion ?? 4,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    will: offlineWill(serial),
  });
  return noDelay(client);
}

export const json = (v: unknown) => Buffer.from(JSON.stringify(v));

/** Every event the gateway emits from now on. */
export function recorder(gw: { subscribe(l: (e: GatewayEvent) => void): () => void }) {
  const events: GatewayEvent[] = [];
  const off = gw.subscribe((e) => events.push(e));
  return { events, off };
}

export async function until<T>(
  f: () => Promise<T | undefined | null | false>,
  what: string,
  ms = 8000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function sessionRow(world: MqttWorld, id: number) {
  const [s] = await world.t.deps.db.select().from(device_sessions).where(eq(device_sessions.id, id));
  return s!;
}

export async function deviceBySerial(world: MqttWorld, serial: string) {
  const [d] = await world.t.deps.db.select().from(devicesTable).where(eq(devicesTable.serial, serial));
  return d!;
}
