/**
 * The device protocol against a real broker, the same cases on the embedded broker and on Mosquitto: start and
 * acknowledgement through the simulated fleet, the last will marking a device offline at once, wrong credentials
 * refused, another device's topics refused or dropped, a device played by the test (duplicated ack and ended, a
 * fault, an event naming another device's session), two API instances on one broker handling each event once, and
 * a device's event across a restart of the server applied once.
 */
import { count, eq } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledger_transactions, orders } from '../../../server/db/schema';
import { SERVER_USERNAME } from '../../../server/services/devices/mqtt/protocol';
import { createMember, fundMember, payFromWallet } from '../device-sessions/devices-fixtures';
import { assertLedgerInvariants } from '../money/invariants';
import {
  deviceBySerial,
  json,
  pause,
  recorder,
  sessionRow,
  startMqttWorld,
  until,
  type BrokerKind,
  type DeviceLevel,
  type MqttWorld,
} from './mqtt-harness';
import { BAD_CREDENTIALS, grant, refusal } from './mqtt-refusals';

const HAND = 'XH-CP-0004'; // device 5's serial is XH-MC-0002; 4 is a charging pile at venue 2
const deviceIdOf = async (w: MqttWorld, serial: string) => (await deviceBySerial(w, serial)).id;

export function mqttScenarios(kind: BrokerKind, level: DeviceLevel) {
  let w: MqttWorld;
  let member: number;
  const pay = async (serial: string) => {
    const { db } = w.t.deps;
    const paid = await payFromWallet(db, member, await deviceIdOf(w, serial), w.t.deps.now());
    await w.devices.dispatch(paid.session_id);
    return paid;
  };
  const refunds = async (order_id: number) =>
    (
      await w.t.deps.db
        .select({ n: count() })
        .from(ledger_transactions)
        .where(eq(ledger_transactions.order_id, order_id))
    )[0]!.n - 1;

  beforeAll(async () => {
    w = await startMqttWorld(kind, {}, { level });
    member = await createMember(w.t.deps.db);
    await fundMember(w.t.deps.db, member, 1, 100_000, w.t.deps.now());
  });
  afterAll(async () => w?.close());

  describe(`devices speaking MQTT ${level === 5 ? '5' : '3.1.1'} (${kind} broker)`, () => {
    it('the simulated fleet is online before the first request; a paid start runs on the device ack', async () => {
      const d = await deviceBySerial(w, 'XH-CP-0001');
      expect(d.last_heartbeat_at).not.toBeNull();
      const { session_id } = await pay('XH-CP-0001');
      const s = await until(async () => {
        const row = await sessionRow(w, session_id);
        return row.status === 'running' && row;
      }, 'the ack');
      expect(s.started_at).not.toBeNull();
      expect((await deviceBySerial(w, 'XH-CP-0001')).status).toBe('running');
    });

    it('last will: a device that loses power is offline at once, not after 90 s; back, it is idle', async () => {
      await w.gw.setMode('XH-CP-0002', 'offline');
      await w.devices.settle();
      const d = await deviceBySerial(w, 'XH-CP-0002');
      expect(d.status).toBe('offline');
      expect(w.t.deps.now().getTime() - d.last_heartbeat_at!.getTime()).toBeLessThan(90_000);
      await w.gw.setMode('XH-CP-0002', 'normal');
      await w.devices.settle();
      expect((await deviceBySerial(w, 'XH-CP-0002')).status).toBe('idle');
    });

    it('refuses a wrong secret, an unknown serial and the server name with a device secret', async () => {
      const good = w.secrets.get('XH-CP-0001')!;
      const codes = [
        await refusal(w.device('XH-CP-0001', 'wrong-secret')),
        await refusal(w.device('XH-CP-0001', `${good}x`)),
        await refusal(w.device('NO-SUCH-1', good)),
        await refusal(w.device(SERVER_USERNAME, good)),
      ];
      expect(codes).toEqual(Array(4).fill(BAD_CREDENTIALS[kind][level]));
      expect(await refusal(w.device('XH-CP-0001', good))).toBe(0);
    });

    it('a device reads and writes only its own topics: another device’s are refused or dropped', async () => {
      const rec = recorder(w.gw);
      await w.gw.setMode('XH-MC-0001', 'silent');
      const raw = await w.device('XH-CP-0003', w.secrets.get('XH-CP-0003')!);
      const heard: string[] = [];
      raw.on('message', (topic) => heard.push(topic));
      const grants = [
        await grant(raw, 'scango/XH-MC-0001/cmd'),
        await grant(raw, 'scango/#'),
        await grant(raw, 'scango/XH-CP-0003/cmd'),
      ];
      // aedes refuses them in the SUBACK; Mosquitto grants the subscription and filters every delivery.
      expect(grants).toEqual(kind === 'embedded' ? [128, 128, 1] : [1, 1, 1]);
      const { session_id } = await pay('XH-MC-0001');
      // Its own ack topic, naming another device's session: heard, and ignored by the server.
      await raw.publishAsync('scango/XH-CP-0003/ack', json({ cmd: 'start', session_id, result: 'ok' }), {
        qos: 1,
      });
      // Another device's topic: the broker refuses it. MQTT 5: a PUBACK with reason code 0x87 (not authorized),
      // the connection kept; MQTT 3.1.1 has no refusal code: aedes closes the connection, Mosquitto drops it.
      const forged = json({ cmd: 'start', session_id, result: 'ok' });
      if (level === 5) {
        expect(await refusal(raw.publishAsync('scango/XH-MC-0001/ack', forged, { qos: 1 }))).toBe(0x87);
        // The protocol is QoS 1: the embedded broker refuses QoS 2 even on the device's own topic (PUBREC 0x87).
        const qos2 = raw.publishAsync('scango/XH-CP-0003/heartbeat', json({}), { qos: 2 });
        expect(await refusal(qos2)).toBe(kind === 'embedded' ? 0x87 : 0);
      } else raw.publish('scango/XH-MC-0001/ack', forged, { qos: 1 });
      await pause(500);
      await w.devices.settle();
      expect(rec.events.some((e) => e.type === 'ack' && e.serial === 'XH-CP-0003')).toBe(true);
      expect(rec.events.some((e) => e.type === 'ack' && e.serial === 'XH-MC-0001')).toBe(false);
      expect((await sessionRow(w, session_id)).status).toBe('starting');
      // The start command for XH-MC-0001 never reached the other device's subscriptions.
      expect(heard).toEqual([]);
      if (level === 5) expect(raw.connected).toBe(true);
      else if (kind === 'embedded') await until(async () => !raw.connected, 'the connection closed');
      rec.off();
      await raw.endAsync(true);
      await w.gw.setMode('XH-MC-0001', 'normal');
    });

    it('a device played by hand: a duplicated ack or ended changes things once; a fault refunds and marks it', async () => {
      await w.gw.setMode(HAND, 'offline');
      const raw = await w.device(HAND, w.secrets.get(HAND)!, { clientId: HAND });
      const commands: { cmd: string; session_id: number; minutes?: number }[] = [];
      raw.on('message', (_t, p) => commands.push(JSON.parse(p.toString())));
      await raw.subscribeAsync(`scango/${HAND}/cmd`, { qos: 1 });
      await raw.publishAsync(`scango/${HAND}/status`, json({ online: true }), { qos: 1, retain: true });
      await until(async () => (await deviceBySerial(w, HAND)).status === 'idle', 'online');

      const first = await pay(HAND);
      const cmd = await until(async () => commands.find((c) => c.session_id === first.session_id), 'start');
      expect(cmd).toMatchObject({ cmd: 'start', minutes: first.price.minutes });
      const ack = json({ cmd: 'start', session_id: first.session_id, result: 'ok' });
      await raw.publishAsync(`scango/${HAND}/ack`, ack, { qos: 1 });
      await raw.publishAsync(`scango/${HAND}/ack`, ack, { qos: 1 });
      const running = await until(async () => {
        const s = await sessionRow(w, first.session_id);
        return s.status === 'running' && s;
      }, 'running');
      await pause(200);
      await w.devices.settle();
      expect((await sessionRow(w, first.session_id)).started_at).toEqual(running.started_at);
      // Ended well before the paid end (a stop on the device): stopped, unused time refunded once.
      const ended = json({ event: 'ended', session_id: first.session_id });
      await raw.publishAsync(`scango/${HAND}/event`, ended, { qos: 1 });
      await raw.publishAsync(`scango/${HAND}/event`, ended, { qos: 1 });
      const stopped = await until(async () => {
        const s = await sessionRow(w, first.session_id);
        return s.status === 'stopped' && s;
      }, 'stopped');
      await pause(200);
      await w.devices.settle();
      const [o] = await w.t.deps.db.select().from(orders).where(eq(orders.id, first.order.id));
      expect(stopped.refund_fen).toBeGreaterThan(0);
      expect(o!.refunded_fen).toBe(stopped.refund_fen);
      expect(await refunds(first.order.id)).toBe(1);

      const second = await pay(HAND);
      await until(async () => commands.find((c) => c.session_id === second.session_id), 'second start');
      await raw.publishAsync(
        `scango/${HAND}/ack`,
        json({ cmd: 'start', session_id: second.session_id, result: 'ok' }),
        { qos: 1 },
      );
      await until(async () => (await sessionRow(w, second.session_id)).status === 'running', 'running');
      await raw.publishAsync(
        `scango/${HAND}/event`,
        json({ event: 'fault', session_id: second.session_id, code: 'E05', message: '过温保护' }),
        { qos: 1 },
      );
      await until(async () => (await sessionRow(w, second.session_id)).status === 'stopped', 'fault stop');
      await w.devices.settle();
      expect((await deviceBySerial(w, HAND)).status).toBe('fault');
      await raw.publishAsync(`scango/${HAND}/status`, json({ online: true }), { qos: 1, retain: true });
      await until(async () => (await deviceBySerial(w, HAND)).status === 'idle', 'fault cleared');
      await assertLedgerInvariants(w.t.deps.db);
      await raw.endAsync();
    });

    it('two API instances on one broker: each event is applied once', async () => {
      if (kind === 'embedded') {
        // The embedded broker has no MQTT 5 shared subscriptions (0x9E): each instance hears every event.
        const probe = await mqtt.connectAsync(w.url, { ...w.server, protocolVersion: 5, reconnectPeriod: 0 });
        expect(await grant(probe, '$share/scango/scango/+/ack')).toBe(128);
        await probe.endAsync();
      }
      const second = await w.secondInstance();
      const rec1 = recorder(w.gw);
      const rec2 = recorder(second.devices.gateway);
      const raw = await w.device(HAND, w.secrets.get(HAND)!, { clientId: HAND });
      const commands: { session_id: number }[] = [];
      raw.on('message', (_t, p) => commands.push(JSON.parse(p.toString())));
      await raw.subscribeAsync(`scango/${HAND}/cmd`, { qos: 1 });
      await raw.publishAsync(`scango/${HAND}/status`, json({ online: true }), { qos: 1, retain: true });
      await until(async () => (await deviceBySerial(w, HAND)).status === 'idle', 'online');
      const paid = await pay(HAND);
      await until(async () => commands.find((c) => c.session_id === paid.session_id), 'start');
      await raw.publishAsync(
        `scango/${HAND}/ack`,
        json({ cmd: 'start', session_id: paid.session_id, result: 'ok' }),
        { qos: 1 },
      );
      await until(async () => (await sessionRow(w, paid.session_id)).status === 'running', 'running');
      await raw.publishAsync(`scango/${HAND}/event`, json({ event: 'ended', session_id: paid.session_id }), {
        qos: 1,
      });
      const s = await until(async () => {
        const row = await sessionRow(w, paid.session_id);
        return row.status === 'stopped' && row;
      }, 'stopped');
      await pause(300);
      await Promise.all([w.devices.settle(), second.devices.settle()]);
      const acks = [...rec1.events, ...rec2.events].filter((e) => e.type === 'ack' && e.serial === HAND);
      // Plain subscriptions: both instances hear it; MQTT 5 shared subscription: exactly one does.
      expect(acks).toHaveLength(kind === 'mosquitto' ? 1 : 2);
      const [o] = await w.t.deps.db.select().from(orders).where(eq(orders.id, paid.order.id));
      expect(o!.refunded_fen).toBe(s.refund_fen);
      expect(await refunds(paid.order.id)).toBe(1);
      await assertLedgerInvariants(w.t.deps.db);
      rec1.off();
      rec2.off();
      await raw.endAsync();
      await second.close();
    });

    it('heartbeats; events after a server restart: the device’s ended is applied once, its repeat changes nothing', async () => {
      w.byHand.add(HAND);
      const connectHand = async () => {
        const raw = await w.device(HAND, w.secrets.get(HAND)!, { clientId: HAND });
        await raw.subscribeAsync(`scango/${HAND}/cmd`, { qos: 1 });
        await raw.publishAsync(`scango/${HAND}/status`, json({ online: true }), { qos: 1, retain: true });
        return raw;
      };
      const raw = await connectHand();
      const commands: { session_id: number }[] = [];
      raw.on('message', (_t, p) => commands.push(JSON.parse(p.toString())));
      await until(async () => (await deviceBySerial(w, HAND)).status === 'idle', 'online');
      // A heartbeat is recorded (batched: one write per burst).
      const before = (await deviceBySerial(w, HAND)).last_heartbeat_at!.getTime();
      w.t.advance(1000);
      await raw.publishAsync(`scango/${HAND}/heartbeat`, json({ session_id: null }), { qos: 1 });
      await until(
        async () => (await deviceBySerial(w, HAND)).last_heartbeat_at!.getTime() >= before + 1000,
        'the heartbeat',
      );
      const paid = await pay(HAND);
      await until(async () => commands.find((c) => c.session_id === paid.session_id), 'start');
      const ack = json({ cmd: 'start', session_id: paid.session_id, result: 'ok' });
      await raw.publishAsync(`scango/${HAND}/ack`, ack, { qos: 1 });
      await until(async () => (await sessionRow(w, paid.session_id)).status === 'running', 'running');
      const ended = json({ event: 'ended', session_id: paid.session_id });
      let device = raw;
      await w.restart(async () => {
        // Mosquitto outlives the server and queues for its persistent session what the device says meanwhile;
        // the embedded broker stops with the server, so the device says it once it has reconnected.
        if (kind === 'mosquitto') await raw.publishAsync(`scango/${HAND}/event`, ended, { qos: 1 });
        expect((await sessionRow(w, paid.session_id)).status).toBe('running');
      });
      if (kind === 'embedded') {
        await until(async () => !raw.connected, 'the old connection gone');
        await raw.endAsync(true);
        device = await connectHand();
        await device.publishAsync(`scango/${HAND}/event`, ended, { qos: 1 });
      }
      const s = await until(async () => {
        const row = await sessionRow(w, paid.session_id);
        return row.status === 'stopped' && row;
      }, 'stopped after the restart');
      // The repeat (a device resending what it is not sure was delivered) and a late ack change nothing.
      await device.publishAsync(`scango/${HAND}/event`, ended, { qos: 1 });
      await device.publishAsync(`scango/${HAND}/ack`, ack, { qos: 1 });
      await pause(300);
      await w.devices.settle();
      expect(await sessionRow(w, paid.session_id)).toEqual(s);
      const [o] = await w.t.deps.db.select().from(orders).where(eq(orders.id, paid.order.id));
      expect(o!.refunded_fen).toBe(s.refund_fen);
      expect(await refunds(paid.order.id)).toBe(1);
      await assertLedgerInvariants(w.t.deps.db);
      await device.endAsync();
    });
  });
}
