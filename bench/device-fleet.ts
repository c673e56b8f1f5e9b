/**
 * The bench's simulated devices in a process of their own, as real hardware is: the server under load runs its
 * broker, and the devices' MQTT clients (sim-fleet.ts, the same code the built-in simulator runs) live here, out of
 * the server's heap and off its thread. The devices are given secrets the way staff issue them (`hashDeviceSecret`
 * stored on the device row), so the server sees them as hardware and its own simulator leaves them alone.
 *
 * Why (docs/performance.md, "The devices out of the server's process"): 6,000 simulated clients made up about 155 MB
 * of the server's 200 MB live heap; each major GC marked all of it on V8's helper threads, and on PostgreSQL, where
 * eight backends already share the two cores with the server, that marking took the server's thread's CPU for a
 * whole round.
 *
 * The parent side is `startDeviceFleet`; run as a child (`fork`), this file answers its messages.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createSimFleet, type SimFleet } from '../server/services/devices/mqtt/sim-fleet';

type ToChild = { type: 'connect'; url: string; devices: [string, string][] } | { type: 'stop' };
type FromChild = { type: 'connected'; missing: number } | { type: 'stopped' };

export interface DeviceFleetProcess {
  /** How many of the devices did not connect (after the fleet's retries). */
  missing: number;
  stop(): Promise<void>;
}

/** Sends `msg` and resolves to the child's answer of type `answer` (rejects if the child exits first). */
function request<T extends FromChild['type']>(
  child: ChildProcess,
  msg: ToChild,
  answer: T,
): Promise<Extract<FromChild, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: FromChild) => {
      if (m.type !== answer) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as Extract<FromChild, { type: T }>);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`the device fleet process exited (${code})`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(msg);
  });
}

/** Starts the process and connects these devices (serial, secret) to the broker at `url`. */
export async function startDeviceFleet(
  url: string,
  devices: [string, string][],
): Promise<DeviceFleetProcess> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, SCANGO_DEVICE_FLEET_CHILD: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    await request(child, { type: 'stop' }, 'stopped').catch(() => {});
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  };
  try {
    const { missing } = await request(child, { type: 'connect', url, devices }, 'connected');
    return { missing, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The child: one fleet of the devices and secrets the parent sent; retries until all are connected. */
function serve(): void {
  let fleet: SimFleet | undefined;
  // The bench went away without a stop (it failed or was killed): the devices go with it, not reconnecting forever.
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (msg: ToChild) => {
    if (msg.type === 'connect') {
      const secrets = new Map(msg.devices);
      const f = (fleet = createSimFleet({
        url: msg.url,
        listSerials: async () => [...secrets.keys()],
        secretsFor: async (serials) => new Map(serials.map((s) => [s, secrets.get(s)!])),
        now: () => new Date(),
      }));
      const missing = () => msg.devices.filter(([s]) => !f.connected(s)).length;
      // Its refresh loop then reconnects a device that dropped, as hardware would retry.
      await f.start();
      for (let i = 0; i < 5 && missing() > 0; i++) await f.refresh();
      process.send!({ type: 'connected', missing: missing() } satisfies FromChild);
    } else {
      await fleet?.stop();
      process.send!({ type: 'stopped' } satisfies FromChild, () => process.exit(0));
    }
  });
}

if (process.env.SCANGO_DEVICE_FLEET_CHILD === '1' && process.send) serve();
