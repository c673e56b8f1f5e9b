/**
 * The simulated fleet: one MQTT client (sim-device.ts) per device it may stand in for, so the whole product runs on
 * one machine over the real protocol. Devices added later are connected at the next refresh (every heartbeat
 * period), as a newly installed device would report in. Each device's mode can be switched (tests, the sandbox
 * control). A device whose secret staff issued is real hardware: the fleet lets go of it (`release`).
 */
import { timingSafeEqual } from 'node:crypto';
import { newDeviceSecret } from '../device-secrets';
import type { DeviceMode } from '../gateway';
import { createSimDevice, type SimDevice } from './sim-device';

export interface SimFleetOptions {
  url: string;
  /** The serials to simulate (read at every refresh). */
  listSerials: () => Promise<string[]>;
  /**
   * Secrets for devices the fleet has none for (a serial missing from the answer is not simulated). Default: fresh
   * random ones held in memory only, which the embedded broker checks with `holds` (nothing written to the DB).
   */
  secretsFor?: (serials: string[]) => Promise<Map<string, string>>;
  now: () => Date;
  ackDelayMs?: number;
  heartbeatMs?: number;
  protocolVersion?: 4 | 5;
}

export interface SimFleet {
  /** Connects every device (first heartbeat sent) and starts the refresh loop. */
  start(): Promise<string[]>;
  refresh(): Promise<string[]>;
  stop(): Promise<void>;
  setMode(serial: string, mode: DeviceMode): Promise<void>;
  getMode(serial: string): DeviceMode;
  /** Staff issued the device a secret for real hardware: the simulated device loses power and is forgotten. */
  release(serial: string): Promise<void>;
  /** Whether the fleet stands in for this device now. */
  simulates(serial: string): boolean;
  /** Whether the simulated device is connected (subscribed to its commands). */
  connected(serial: string): boolean;
  /** Whether `secret` is the one this fleet holds for `serial` (the embedded broker's check of its own devices). */
  holds(serial: string, secret: string): boolean;
}

const CONCURRENCY = 16;

interface FleetState {
  opts: SimFleetOptions;
  devices: Map<string, SimDevice>;
  secrets: Map<string, string>;
  modes: Map<string, DeviceMode>;
  released: Set<string>;
  stopped: boolean;
}

const modeOf = (st: FleetState, serial: string): DeviceMode => st.modes.get(serial) ?? 'normal';

function deviceFor(st: FleetState, serial: string): SimDevice {
  let d = st.devices.get(serial);
  if (!d) {
    d = createSimDevice({
      url: st.opts.url,
      serial,
      secret: st.secrets.get(serial)!,
      mode: () => modeOf(st, serial),
      now: st.opts.now,
      ackDelayMs: st.opts.ackDelayMs ?? 300,
      heartbeatMs: st.opts.heartbeatMs ?? 30_000,
      protocolVersion: st.opts.protocolVersion,
    });
    st.devices.set(serial, d);
  }
  return d;
}

/** Connects these devices, 16 at a time; returns the serials that connected. */
async function connectAll(st: FleetState, serials: string[]): Promise<string[]> {
  const ok: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < serials.length && !st.stopped) {
      const serial = serials[next++]!;
      try {
        await deviceFor(st, serial).connect();
        ok.push(serial);
      } catch {
        // Refused (a secret changed elsewhere) or the broker is away: ask for a secret again next refresh.
        st.secrets.delete(serial);
        st.devices.delete(serial);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, serials.length) }, worker));
  return ok;
}

async function secretsFor(opts: SimFleetOptions, serials: string[]): Promise<Map<string, string>> {
  if (opts.secretsFor) return opts.secretsFor(serials);
  return new Map(serials.map((s) => [s, newDeviceSecret()]));
}

async function refreshOnce(st: FleetState): Promise<string[]> {
  const wanted = (await st.opts.listSerials()).filter((s) => !st.released.has(s));
  const wantedSet = new Set(wanted);
  for (const [serial, d] of st.devices) {
    if (!wantedSet.has(serial)) {
      st.devices.delete(serial);
      st.secrets.delete(serial);
      await d.close();
    }
  }
  const missing = wanted.filter((s) => !st.secrets.has(s));
  if (missing.length > 0) for (const [s, v] of await secretsFor(st.opts, missing)) st.secrets.set(s, v);
  const toConnect = wanted.filter(
    (s) => st.secrets.has(s) && modeOf(st, s) !== 'offline' && !st.devices.get(s)?.connected,
  );
  return connectAll(st, toConnect);
}

export function createSimFleet(opts: SimFleetOptions): SimFleet {
  const st: FleetState = {
    opts,
    devices: new Map(),
    secrets: new Map(),
    modes: new Map(),
    released: new Set(),
    stopped: false,
  };
  let timer: NodeJS.Timeout | null = null;
  let refreshing: Promise<string[]> | null = null;
  const refresh = () => {
    refreshing ??= refreshOnce(st).finally(() => {
      refreshing = null;
    });
    return refreshing;
  };

  return {
    async start() {
      const connected = await refresh();
      timer = setInterval(() => {
        refresh().catch((err) => {
          if (!st.stopped) console.error('device simulator refresh failed:', err);
        });
      }, opts.heartbeatMs ?? 30_000);
      timer.unref?.();
      return connected;
    },
    refresh,
    async stop() {
      st.stopped = true;
      if (timer) clearInterval(timer);
      await refreshing?.catch(() => {});
      await Promise.all([...st.devices.values()].map((d) => d.close()));
      st.devices.clear();
    },
    getMode: (serial) => modeOf(st, serial),
    async setMode(serial, mode) {
      const before = modeOf(st, serial);
      st.modes.set(serial, mode);
      if (mode === 'offline' && before !== 'offline') await st.devices.get(serial)?.drop();
      if (mode !== 'offline' && before === 'offline') await connectAll(st, [serial]);
    },
    async release(serial) {
      st.released.add(serial);
      st.secrets.delete(serial);
      const d = st.devices.get(serial);
      st.devices.delete(serial);
      // Without DISCONNECT: the broker publishes its last will, so the device shows offline at once.
      await d?.drop();
    },
    simulates: (serial) => st.secrets.has(serial) && !st.released.has(serial),
    connected: (serial) => st.devices.get(serial)?.connected ?? false,
    holds(serial, secret) {
      const held = st.secrets.get(serial);
      if (held === undefined || st.released.has(serial)) return false;
      const a = Buffer.from(held);
      const b = Buffer.from(secret);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
