/**
 * Wiring of the devices service into the server: builds the default `deps.devices` (the MQTT gateway on the
 * embedded broker or MQTT_URL, the simulated fleet as MQTT clients, the money `refundOrder`, SKIP LOCKED on
 * PostgreSQL) and starts it with the server. Tests that build AppDeps by hand call `createDevicesForDeps(deps)`.
 */
import { randomBytes } from 'node:crypto';
import type { AppDeps, StartHook } from '../../context';
import { refundOrder } from '../orders';
import { credentialRows, hashDeviceSecret, simulatedSerials, verifyDeviceSecret } from './device-secrets';
import { createDevicesService, type DevicesService } from './devices.service';
import type { DeviceGateway } from './gateway';
import { createMqttDevicesGateway, type MqttDevicesOptions } from './mqtt/mqtt-devices';

declare module '../../context' {
  interface AppDeps {
    /** Device gateway, sessions and their scheduler. */
    devices?: DevicesService;
  }
}

export interface DevicesForDepsOptions {
  gateway?: DeviceGateway;
  /** The simulated devices: answer delay (default 300 ms), heartbeat period (default 30 s); false = none. */
  simulator?: { ackDelayMs?: number; heartbeatMs?: number; protocolVersion?: 4 | 5 } | false;
  tickMs?: number;
}

/**
 * The default gateway for these deps: MQTT. Without MQTT_URL a broker runs in-process on MQTT_PORT and, unless
 * DEVICE_SIMULATOR=false, every device staff have not issued a secret is simulated as an MQTT client (with a
 * secret the simulator holds in memory and the broker checks in-process; a staff-issued secret is never touched);
 * with MQTT_URL the server is a client of that broker and nothing is simulated; with MQTT_DYNSEC as well it keeps
 * the devices' credentials in that Mosquitto's dynamic security plugin (dynsec-sync.ts).
 */
export function createDefaultGateway(
  deps: AppDeps,
  simulator: DevicesForDepsOptions['simulator'] = {},
): DeviceGateway {
  const { env } = deps;
  const broker: MqttDevicesOptions['broker'] = env.MQTT_URL
    ? {
        embedded: false,
        url: env.MQTT_URL,
        shared: env.MQTT_SHARED,
        ...(env.MQTT_CLIENT_ID ? { clientId: env.MQTT_CLIENT_ID } : {}),
        protocolVersion: env.MQTT_SHARED ? 5 : 4,
      }
    : {
        embedded: true,
        port: env.MQTT_PORT,
        host: env.HOST,
        serverSecret: env.MQTT_SERVER_SECRET ?? randomBytes(32).toString('base64url'),
        verifyDevice: (serial, secret) => verifyDeviceSecret(deps.db, serial, secret),
      };
  // The simulated devices authenticate in-process, so they need the embedded broker.
  const simulate = simulator !== false && env.DEVICE_SIMULATOR && !env.MQTT_URL;
  return createMqttDevicesGateway({
    now: deps.now,
    broker,
    ...(env.MQTT_URL && env.MQTT_DYNSEC
      ? {
          dynsec: {
            devices: () => credentialRows(deps.db),
            device: async (serial) => (await credentialRows(deps.db, serial))[0],
            hashSecret: hashDeviceSecret,
          },
        }
      : {}),
    simulator: simulate
      ? {
          ...simulator,
          listSerials: () => simulatedSerials(deps.db),
        }
      : false,
  });
}

/** The default devices service for these deps. */
export function createDevicesForDeps(deps: AppDeps, opts: DevicesForDepsOptions = {}): DevicesService {
  return createDevicesService({
    db: deps.db,
    gateway: opts.gateway ?? createDefaultGateway(deps, opts.simulator),
    now: deps.now,
    refundOrder,
    tickMs: opts.tickMs,
    skipLocked: deps.dbKind === 'postgres',
  });
}

/** Start hook: creates `deps.devices` unless a test supplied one, opens the gateway and runs the scheduler. */
export const devicesStartHook: StartHook = async (deps) => {
  deps.devices ??= createDevicesForDeps(deps);
  return deps.devices.start();
};
