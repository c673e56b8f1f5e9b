/**
 * Wiring of the devices service into the server: builds the default `deps.devices` (embedded simulator, the money
 * `refundOrder`, SKIP LOCKED on PostgreSQL) and starts it with the server. Tests that build AppDeps by
 * hand call `createDevicesForDeps(deps)` themselves.
 */
import type { AppDeps, StartHook } from '../../context';
import { devices as devicesTable } from '../../db/schema';
import { refundOrder } from '../orders';
import { createDevicesService, type DevicesService } from './devices.service';
import type { DeviceGateway } from './gateway';
import { createSimulatorGateway, type SimulatorOptions } from './simulator.gateway';

declare module '../../context' {
  interface AppDeps {
    /** Device gateway, sessions and their scheduler. */
    devices?: DevicesService;
  }
}

export interface DevicesForDepsOptions {
  gateway?: DeviceGateway;
  simulator?: Omit<SimulatorOptions, 'listSerials' | 'now'>;
  tickMs?: number;
}

/** The default devices service for these deps: every device in the DB is simulated. */
export function createDevicesForDeps(deps: AppDeps, opts: DevicesForDepsOptions = {}): DevicesService {
  const gateway =
    opts.gateway ??
    createSimulatorGateway({
      ...opts.simulator,
      now: deps.now,
      listSerials: async () =>
        (await deps.db.select({ serial: devicesTable.serial }).from(devicesTable)).map((d) => d.serial),
    });
  return createDevicesService({
    db: deps.db,
    gateway,
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
