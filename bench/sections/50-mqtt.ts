/**
 * Devices over MQTT, on the embedded broker (aedes, in-process) and on Mosquitto (when installed): commands per
 * second through the broker (the server's gateway publishes QoS 1 stop commands, the simulated devices, MQTT
 * clients, acknowledge; 32 in flight), and the time from a wallet pay (the pay transaction with its `starting`
 * session) to the device's acknowledgement written to the DB (session `running`), p50 and p99, one pay at a time.
 * Simulated devices answer at once here (no 300 ms answer delay), so the rows measure the broker and the server.
 * The command round trip is also timed one at a time, where no queue hides what one command costs. The machine is
 * shared: each row's note has the load average.
 */
import os from 'node:os';
import type { GatewayEvent } from '../../server/services/devices/gateway';
import { stopCommandId } from '../../server/services/devices/lifecycle';
import { createMember, fundMember, payFromWallet } from '../../tests/server/device-sessions/devices-fixtures';
import { mosquittoAvailable } from '../../tests/server/mqtt/mosquitto';
import {
  sessionRow,
  startMqttWorld,
  type BrokerKind,
  type MqttWorld,
} from '../../tests/server/mqtt/mqtt-harness';
import { ledgerViolations } from '../../tests/server/money/invariants';
import type { BenchContext, BenchRow } from '../types';
import { percentile, round } from '../lib';

const IN_FLIGHT = 32;
const load = () => `load average ${os.loadavg()[0]!.toFixed(1)}`;
const SERIALS = ['XH-CP-0001', 'XH-CP-0002', 'XH-CP-0003', 'XH-CP-0004', 'XH-MC-0001', 'XH-MC-0002'];

/** Resolves each command's promise when its acknowledgement comes back through the broker. */
function ackWaiter(world: MqttWorld) {
  const waiting = new Map<string, () => void>();
  const off = world.gw.subscribe((e: GatewayEvent) => {
    if (e.type === 'ack') waiting.get(`${e.serial}/${e.command_id}`)?.();
  });
  const wait = (serial: string, command_id: string) =>
    new Promise<void>((resolve) => waiting.set(`${serial}/${command_id}`, resolve));
  return { wait, off, waiting };
}

async function commandsPerSecond(
  ctx: BenchContext,
  world: MqttWorld,
  kind: BrokerKind,
  inFlight: number,
): Promise<BenchRow> {
  const total =
    inFlight > 1 ? Math.min(ctx.limits.maxRequests * 2, 5000) : Math.min(ctx.limits.maxRequests / 4, 500);
  const deadline = Date.now() + ctx.limits.maxSeconds * 1000;
  const waiter = ackWaiter(world);
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total && Date.now() < deadline) {
      const n = next++;
      const serial = SERIALS[n % SERIALS.length]!;
      const id = stopCommandId(1_000_000 + n);
      const t0 = performance.now();
      const acked = waiter.wait(serial, id);
      await world.gw.stop(serial, id);
      await acked;
      waiter.waiting.delete(`${serial}/${id}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  waiter.off();
  latencies.sort((a, b) => a - b);
  return {
    section: 'mqtt',
    name: `commands through the broker (${kind}), ${inFlight === 1 ? 'one at a time' : `${inFlight} in flight`}`,
    // Each acknowledgement is also applied by the devices service (a conditional update that finds nothing).
    db: world.t.deps.dbKind,
    requests: latencies.length,
    rps: round(latencies.length / seconds),
    p50_ms: round(percentile(latencies, 50), 2),
    p99_ms: round(percentile(latencies, 99), 2),
    note: load(),
  };
}

async function payToAck(ctx: BenchContext, world: MqttWorld, kind: BrokerKind): Promise<BenchRow> {
  const { db } = world.t.deps;
  const member = await createMember(db);
  await fundMember(db, member, 1, 10_000_000, world.t.deps.now());
  const count = Math.min(Math.floor(ctx.limits.maxRequests / 10), 200);
  const deadline = Date.now() + ctx.limits.maxSeconds * 1000;
  const latencies: number[] = [];
  for (let i = 0; i < count && Date.now() < deadline; i++) {
    const t0 = performance.now();
    const paid = await payFromWallet(db, member, 1, world.t.deps.now());
    await world.devices.dispatch(paid.session_id);
    for (;;) {
      await world.devices.settle();
      if ((await sessionRow(world, paid.session_id)).status === 'running') break;
      await new Promise((r) => setTimeout(r, 1));
    }
    latencies.push(performance.now() - t0);
    // Free the device for the next pay (the member stops; unused time refunded).
    await world.devices.stop(paid.session_id);
  }
  await world.devices.settle();
  const violations = await ledgerViolations(db);
  latencies.sort((a, b) => a - b);
  return {
    section: 'mqtt',
    name: `wallet pay -> device ack in DB (${kind}), one at a time`,
    db: world.t.deps.dbKind,
    requests: latencies.length,
    p50_ms: round(percentile(latencies, 50), 1),
    p99_ms: round(percentile(latencies, 99), 1),
    note: `${violations.length === 0 ? 'ledger invariants hold' : `LEDGER VIOLATIONS: ${violations.join('; ')}`}; ${load()}`,
  };
}

export default async function mqttSection(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const kinds: BrokerKind[] = ['embedded'];
  if (mosquittoAvailable()) kinds.push('mosquitto');
  else ctx.log('mqtt: Mosquitto not installed (apt-get install -y mosquitto): its rows skipped');
  for (const kind of kinds) {
    const world = await startMqttWorld(kind, {}, { ackDelayMs: 0 });
    try {
      rows.push(await commandsPerSecond(ctx, world, kind, IN_FLIGHT));
      rows.push(await commandsPerSecond(ctx, world, kind, 1));
      rows.push(await payToAck(ctx, world, kind));
    } finally {
      await world.close();
    }
  }
  return rows;
}
