/**
 * The default device gateway: MQTT all the way. `open()` starts the embedded broker (unless an external one is
 * given), connects the server's MQTT client, then (when simulating) connects one MQTT client per device and waits
 * until the server has heard each one, so devices show online before the server takes requests.
 */
import type { ControllableGateway, DeviceMode, GatewayEvent, GatewayListener } from '../gateway';
import { startEmbeddedBroker, type EmbeddedBroker } from './broker';
import { createDynsecSync, type DynsecSync, type DynsecSyncOptions } from './dynsec-sync';
import { createMqttGateway, type MqttGateway, type MqttGatewayOptions } from './mqtt.gateway';
import { SERVER_USERNAME } from './protocol';
import { createSimFleet, type SimFleet, type SimFleetOptions } from './sim-fleet';

export interface MqttDevicesOptions {
  now: () => Date;
  /** Run a broker in-process, or use an external one (MQTT_URL). */
  broker:
    | {
        embedded: true;
        port: number;
        host: string;
        serverSecret: string;
        verifyDevice: (serial: string, secret: string) => Promise<boolean>;
      }
    | ({ embedded: false } & Omit<MqttGatewayOptions, 'now'>);
  /** Simulate the devices as MQTT clients (the default without real hardware). */
  simulator?: Omit<SimFleetOptions, 'url' | 'now'> | false;
  /** With an external Mosquitto: keep device credentials in its dynamic security plugin (MQTT_DYNSEC). */
  dynsec?: Omit<DynsecSyncOptions, 'url'>;
  /** How long open() and setMode() wait to hear devices; default 10 s. */
  settleMs?: number;
}

export interface MqttDevicesGateway extends ControllableGateway {
  /** The broker URL devices use (no credentials); known after open(). */
  readonly brokerUrl: string | undefined;
  readonly broker: EmbeddedBroker | undefined;
  readonly client: MqttGateway | undefined;
  /** The dynamic security sync, when the broker is an external Mosquitto with MQTT_DYNSEC. */
  readonly dynsec: DynsecSync | undefined;
}

/** Resolves when an event matching `test` arrives (or after `ms`: the heartbeat rule is the fallback). */
function waitFor(listeners: Set<GatewayListener>, ms: number, test: (e: GatewayEvent) => boolean) {
  return new Promise<void>((resolve) => {
    const off = () => {
      listeners.delete(l);
      clearTimeout(timer);
      resolve();
    };
    const l: GatewayListener = (e) => {
      if (test(e)) off();
    };
    const timer = setTimeout(off, ms);
    listeners.add(l);
  });
}

/** The broker (embedded: started here) and the server's client of it, not yet open. */
async function connectBroker(
  opts: MqttDevicesOptions,
  simulated: (serial: string, secret: string) => boolean,
) {
  const b = opts.broker;
  if (b.embedded) {
    // The simulated devices are checked against the fleet in this process; every other device against the DB.
    const broker = await startEmbeddedBroker({
      ...b,
      verifyDevice: async (serial, secret) => simulated(serial, secret) || b.verifyDevice(serial, secret),
    });
    const client = createMqttGateway({
      url: broker.url,
      username: SERVER_USERNAME,
      password: b.serverSecret,
      now: opts.now,
    });
    return { broker, brokerUrl: broker.url, client };
  }
  const { embedded: _embedded, ...rest } = b;
  const u = new URL(rest.url);
  return {
    broker: undefined,
    brokerUrl: `${u.protocol}//${u.host}`,
    client: createMqttGateway({ ...rest, now: opts.now }),
  };
}

/** Switches a simulated device's mode and waits until the server has heard the effect (offline, or back). */
async function switchMode(
  fleet: SimFleet,
  serial: string,
  mode: DeviceMode,
  wait: (test: (e: GatewayEvent) => boolean) => Promise<void>,
) {
  const before = fleet.getMode(serial);
  let heard: Promise<void> | undefined;
  if (mode === 'offline' && before !== 'offline') {
    heard = wait((e) => e.type === 'offline' && e.serial === serial);
  } else if (mode !== 'offline' && before === 'offline') {
    heard = wait(
      (e) =>
        (e.type === 'online' && e.serial === serial) ||
        (e.type === 'heartbeat' && e.serials.includes(serial)),
    );
  }
  await fleet.setMode(serial, mode);
  await heard;
}

/**
 * Opens the broker (embedded or external), the dynamic security sync, the server's client and, when simulating,
 * the device fleet, waiting until the server has heard every simulated device.
 */
async function openParts(
  opts: MqttDevicesOptions,
  holds: (serial: string, secret: string) => boolean,
  listeners: Set<GatewayListener>,
  wait: (test: (e: GatewayEvent) => boolean) => Promise<void>,
  onFleet: (fleet: SimFleet) => void,
) {
  const { broker, brokerUrl, client } = await connectBroker(opts, holds);
  let dynsec: DynsecSync | undefined;
  // Dynamic security first: it may change the server user's roles, which drops that user's connections.
  if (opts.dynsec && !opts.broker.embedded) {
    dynsec = createDynsecSync({ ...opts.dynsec, url: opts.broker.url });
    await dynsec.open();
  }
  client.subscribe((e) => {
    for (const l of listeners) l(e);
  });
  await client.open();
  if (!opts.simulator) return { broker, brokerUrl, client, dynsec, fleet: undefined };
  const fleet = createSimFleet({ ...opts.simulator, url: brokerUrl, now: opts.now });
  // Known before it connects: the embedded broker checks the simulated devices' secrets against it.
  onFleet(fleet);
  const connected = await fleet.start();
  const heard = client.seen;
  const all = () => connected.every((s) => heard.has(s));
  if (!all()) await wait(() => all());
  client.flush();
  return { broker, brokerUrl, client, dynsec, fleet };
}

/** A device added since the simulator's last refresh is connected now, so its first command finds it. */
async function connectIfNew(fleet: SimFleet, serial: string) {
  const waiting = () => fleet.getMode(serial) !== 'offline' && !fleet.connected(serial);
  for (let i = 0; i < 2 && waiting(); i++) await fleet.refresh();
}

/** The server's client once the gateway is open. */
function opened(client: MqttGateway | undefined): MqttGateway {
  if (!client) throw new Error('device gateway is not open');
  return client;
}

export function createMqttDevicesGateway(opts: MqttDevicesOptions): MqttDevicesGateway {
  const listeners = new Set<GatewayListener>();
  const settleMs = opts.settleMs ?? 10_000;
  let broker: EmbeddedBroker | undefined;
  let client: MqttGateway | undefined;
  let fleet: SimFleet | undefined;
  let brokerUrl: string | undefined;
  let dynsec: DynsecSync | undefined;
  const wait = (test: (e: GatewayEvent) => boolean) => waitFor(listeners, settleMs, test);

  return {
    kind: 'mqtt',
    get brokerUrl() {
      return brokerUrl;
    },
    get broker() {
      return broker;
    },
    get client() {
      return client;
    },
    get dynsec() {
      return dynsec;
    },
    async start(serial, minutes, command_id) {
      if (fleet) await connectIfNew(fleet, serial);
      return opened(client).start(serial, minutes, command_id);
    },
    stop: (serial, command_id) => opened(client).stop(serial, command_id),
    status: (serial) => opened(client).status(serial),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async open() {
      if (client) return;
      ({ broker, brokerUrl, client, dynsec, fleet } = await openParts(
        opts,
        (serial, secret) => fleet?.holds(serial, secret) ?? false,
        listeners,
        wait,
        (f) => (fleet = f),
      ));
    },
    async close() {
      await dynsec?.close();
      dynsec = undefined;
      await fleet?.stop();
      fleet = undefined;
      await client?.close();
      client = undefined;
      await broker?.close();
      broker = undefined;
    },
    async secretIssued(serial, secret) {
      // The old connection goes at once (its will marks the device offline); the simulator lets go of it. With
      // dynamic security the broker gets the new secret, which drops the old connection there.
      broker?.kick(serial);
      await fleet?.release(serial);
      await dynsec?.secretIssued(serial, secret);
    },
    async deviceChanged(serial) {
      // Disabled or enabled: the embedded broker drops the connection, and the device's next connect is checked
      // against its row (a disabled device is refused; real hardware reconnects by itself once enabled).
      broker?.kick(serial);
      await dynsec?.deviceChanged(serial);
    },
    async setMode(serial: string, mode: DeviceMode) {
      if (!fleet) throw new Error('the device simulator is not running');
      await switchMode(fleet, serial, mode, wait);
    },
    getMode: (serial) => fleet?.getMode(serial) ?? 'normal',
    simulates: (serial) => fleet?.simulates(serial) ?? false,
  };
}
