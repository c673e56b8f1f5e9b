/**
 * The simulated device's heartbeats on the embedded broker: one as soon as it connects, then one every period, the
 * first of those at a random point of the period, so a fleet connected in one burst does not beat in one burst.
 */
import mqtt from 'mqtt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmbeddedBroker, type EmbeddedBroker } from '../../../server/services/devices/mqtt/broker';
import { SERVER_USERNAME } from '../../../server/services/devices/mqtt/protocol';
import { createSimDevice, type SimDevice } from '../../../server/services/devices/mqtt/sim-device';

const SECRET = 'server-secret-for-this-test';
const PERIOD = 600;
const DEVICES = 8;

let broker: EmbeddedBroker;
const sims: SimDevice[] = [];

beforeAll(async () => {
  broker = await startEmbeddedBroker({
    port: 0,
    host: '127.0.0.1',
    serverSecret: SECRET,
    verifyDevice: async () => true,
  });
});

afterAll(async () => {
  await Promise.all(sims.map((d) => d.close()));
  await broker?.close();
});

it('a fleet connected at once beats at connect, then spread over the period, each device once a period', async () => {
  const listener = await mqtt.connectAsync(broker.url, { username: SERVER_USERNAME, password: SECRET });
  const beats = new Map<string, number[]>();
  listener.on('message', (topic) => {
    const serial = topic.split('/')[1]!;
    beats.set(serial, [...(beats.get(serial) ?? []), performance.now()]);
  });
  await listener.subscribeAsync('scango/+/heartbeat', { qos: 1 });
  for (let i = 0; i < DEVICES; i++) {
    sims.push(
      createSimDevice({
        url: broker.url,
        serial: `SIM-BEAT-${i}`,
        secret: 'any',
        mode: () => 'normal',
        now: () => new Date(),
        ackDelayMs: 5,
        heartbeatMs: PERIOD,
      }),
    );
  }
  const t0 = performance.now();
  await Promise.all(sims.map((d) => d.connect()));
  const connected = performance.now();
  // Past one period and a half: every device has sent its first periodic beat (some a second one too).
  await new Promise((r) => setTimeout(r, PERIOD * 1.5));
  await listener.endAsync();
  const all = [...beats.values()];
  expect(all).toHaveLength(DEVICES);
  for (const times of all) {
    expect(times.length).toBeGreaterThanOrEqual(2);
    // Slack for a busy machine's late timers and deliveries; what is checked is one beat at connect, then one
    // within the period, not the timers' precision.
    expect(times[0]).toBeLessThanOrEqual(connected + 200);
    expect(times[1]! - times[0]!).toBeLessThanOrEqual(PERIOD + 250);
  }
  // Connected within one burst, the devices' second beats are not: eight uniform draws over the period all
  // within a tenth of it has a chance below one in a million.
  const second = all.map((t) => t[1]! - t0).sort((a, b) => a - b);
  expect(second.at(-1)! - second[0]!).toBeGreaterThan(PERIOD / 10);
});
