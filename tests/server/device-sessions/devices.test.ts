/**
 * Device gateway, simulator and session lifecycle on a real database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL), with real money: wallet pays and refunds go through the money services, and the
 * shared ledger invariants are checked after every money-moving case.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { statementCounter, type Database } from '../../../server/db/client';
import { device_sessions, devices, orders, wallets } from '../../../server/db/schema';
import { createDevicesService, type DevicesService } from '../../../server/services/devices/devices.service';
import { createSimulatorGateway } from '../../../server/services/devices/simulator.gateway';
import type { ControllableGateway } from '../../../server/services/devices/gateway';
import { sentMarker, tick } from '../../../server/services/devices/device-scheduler';
import { markRunningMany } from '../../../server/services/devices/lifecycle';
import {
  ACK_TIMEOUT_MS,
  beginSession,
  checkDeviceAvailable,
} from '../../../server/services/devices/sessions';
import { refundOrder } from '../../../server/services/orders';
import { HttpError } from '../../../server/lib/errors';
import { assertLedgerInvariants } from '../money/invariants';
import { createTestDb } from '../test-db';
import {
  createMember,
  deviceRow,
  fundMember,
  orderRow,
  payFromWallet,
  priceFor,
  seed,
} from './devices-fixtures';

const onPostgres = it.skipIf(!process.env.TEST_DATABASE_URL);

let database: Database;
let clock = new Date('2026-11-21T08:00:00Z');
const now = () => clock;
const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

let gateway: ControllableGateway;
let service: DevicesService;
let stopService: () => Promise<void>;
let member: number;
const MERCHANT = 1;

async function until<T>(f: () => Promise<T | undefined | null | false>, what: string, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    await service.settle();
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function session(id: number) {
  const [s] = await database.db.select().from(device_sessions).where(eq(device_sessions.id, id));
  return s!;
}

async function balance(member_id: number) {
  const [w] = await database.db.select().from(wallets).where(eq(wallets.member_id, member_id));
  return w ? w.principal_fen + w.bonus_fen : 0;
}

function makeService(db = database.db) {
  const gw = createSimulatorGateway({
    now,
    ackDelayMs: 5,
    heartbeatMs: 60_000,
    listSerials: async () => (await db.select({ serial: devices.serial }).from(devices)).map((d) => d.serial),
  });
  const svc = createDevicesService({
    db,
    gateway: gw,
    now,
    refundOrder,
    tickMs: 60_000,
    skipLocked: database.kind === 'postgres',
  });
  return { gw, svc };
}

beforeAll(async () => {
  database = await createTestDb();
  await seed(database.db);
  ({ gw: gateway, svc: service } = makeService());
  stopService = await service.start();
  await service.settle();
  member = await createMember(database.db);
  await fundMember(database.db, member, MERCHANT, 10_000, clock);
});

afterAll(async () => {
  await stopService?.();
  await database?.close();
});

beforeEach(async () => {
  for (const serial of ['XH-CP-0001', 'XH-CP-0002', 'XH-MC-0001', 'XH-CP-0003', 'XH-CP-0004', 'XH-MC-0002']) {
    gateway.setMode(serial, 'normal');
  }
  // Fresh heartbeats at the current (moved) time, as the simulator's periodic beat would send.
  await service.handle({
    type: 'heartbeat',
    serials: ['XH-CP-0001', 'XH-CP-0002', 'XH-MC-0001', 'XH-CP-0003', 'XH-CP-0004', 'XH-MC-0002'],
    at: clock,
  });
});

describe('availability', () => {
  it('is ok for a heartbeating idle device, offline after 90 s of silence or an offline notice', async () => {
    await database.db.transaction(async (tx) => {
      expect(await checkDeviceAvailable(tx, 2, clock)).toBe('ok');
      expect(await checkDeviceAvailable(tx, 2, new Date(clock.getTime() + 89_000))).toBe('ok');
      expect(await checkDeviceAvailable(tx, 2, new Date(clock.getTime() + 90_000))).toBe('offline');
    });
    gateway.setMode('XH-CP-0002', 'offline');
    await service.settle();
    expect((await deviceRow(database.db, 2)).status).toBe('offline');
    await database.db.transaction(async (tx) =>
      expect(await checkDeviceAvailable(tx, 2, clock)).toBe('offline'),
    );
    gateway.setMode('XH-CP-0002', 'normal');
    await service.settle();
    expect((await deviceRow(database.db, 2)).status).toBe('idle');
  });

  it('answers fault, disabled, and disabled for a device that does not exist', async () => {
    await database.db.update(devices).set({ status: 'fault' }).where(eq(devices.id, 5));
    await database.db.update(devices).set({ status: 'disabled' }).where(eq(devices.id, 6));
    await database.db.transaction(async (tx) => {
      expect(await checkDeviceAvailable(tx, 5, clock)).toBe('fault');
      expect(await checkDeviceAvailable(tx, 6, clock)).toBe('disabled');
      expect(await checkDeviceAvailable(tx, 999, clock)).toBe('disabled');
    });
    await database.db.update(devices).set({ status: 'idle' }).where(eq(devices.id, 5));
    await database.db.update(devices).set({ status: 'idle' }).where(eq(devices.id, 6));
  });
});

describe('session lifecycle', () => {
  it('dispatch -> ack -> running; busy meanwhile; ends at ends_at with the order completed', async () => {
    const before = await balance(member);
    const { order, session_id, price } = await payFromWallet(database.db, member, 1, clock);
    expect(await balance(member)).toBe(before - price.price_fen);
    expect((await session(session_id)).status).toBe('starting');
    await database.db.transaction(async (tx) =>
      expect(await checkDeviceAvailable(tx, 1, clock)).toBe('busy'),
    );

    // Idempotent per order; another order on the same device is refused with 409 and the tx stays usable.
    await database.db.transaction(async (tx) => {
      const again = await beginSession(tx, {
        order_id: order.id,
        device_id: 1,
        member_id: member,
        minutes: 30,
        now: clock,
      });
      expect(again.id).toBe(session_id);
    });

    await service.dispatch(session_id);
    await service.dispatch(session_id); // a second dispatch sends nothing
    const running = await until(async () => {
      const s = await session(session_id);
      return s.status === 'running' && s;
    }, 'ack');
    expect(running.started_at?.getTime()).toBe(clock.getTime());
    expect(running.ends_at?.getTime()).toBe(clock.getTime() + price.minutes * 60_000);
    expect((await orderRow(database.db, order.id)).status).toBe('started');
    expect((await deviceRow(database.db, 1)).status).toBe('running');

    advance(price.minutes * 60_000 - 1000);
    expect((await service.tick()).ended).toBe(0);
    advance(1000);
    expect((await service.tick()).ended).toBe(1);
    expect((await session(session_id)).status).toBe('ended');
    expect((await orderRow(database.db, order.id)).status).toBe('completed');
    expect((await deviceRow(database.db, 1)).status).toBe('idle');
    expect(await balance(member)).toBe(before - price.price_fen);
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it('a second session on a busy device is refused with 409 DEVICE_BUSY', async () => {
    const first = await payFromWallet(database.db, member, 3, clock);
    const err = await payFromWallet(database.db, member, 3, clock).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(409);
    expect((err as HttpError).code).toBe('DEVICE_BUSY');
    await service.dispatch(first.session_id);
    await until(async () => (await session(first.session_id)).status === 'running', 'ack');
    advance(first.price.minutes * 60_000);
    await service.tick();
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it('a device that does not acknowledge: the session fails at the deadline and the order is fully refunded', async () => {
    gateway.setMode('XH-CP-0003', 'silent');
    const before = await balance(member);
    const { order, session_id } = await payFromWallet(database.db, member, 4, clock);
    await service.dispatch(session_id);
    await new Promise((r) => setTimeout(r, 30));
    await service.settle();
    expect((await session(session_id)).status).toBe('starting');
    advance(ACK_TIMEOUT_MS - 1);
    expect((await service.tick()).failed).toBe(0);
    advance(1);
    expect((await service.tick()).failed).toBe(1);
    const s = await session(session_id);
    expect(s.status).toBe('failed');
    expect(s.refund_fen).toBe(order.amount_fen);
    const o = await orderRow(database.db, order.id);
    expect(o.status).toBe('refunded');
    expect(o.refunded_fen).toBe(order.amount_fen);
    expect(await balance(member)).toBe(before);
    expect((await service.tick()).failed).toBe(0);
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it('a refusal fails the session and refunds in full', async () => {
    gateway.setMode('XH-CP-0004', 'refuse');
    const before = await balance(member);
    const { order, session_id } = await payFromWallet(database.db, member, 5, clock);
    await service.dispatch(session_id);
    const s = await until(async () => {
      const r = await session(session_id);
      return r.status === 'failed' && r;
    }, 'refusal');
    expect(s.failure_reason).toContain('拒绝');
    expect((await orderRow(database.db, order.id)).refunded_fen).toBe(order.amount_fen);
    expect(await balance(member)).toBe(before);
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it('stop early refunds the unused time pro rata (whole seconds, floor)', async () => {
    const before = await balance(member);
    const { order, session_id, price } = await payFromWallet(database.db, member, 6, clock);
    await service.dispatch(session_id);
    await until(async () => (await session(session_id)).status === 'running', 'ack');
    advance(10 * 60_000 + 1500); // 10 min 1.5 s used
    const stopped = await service.stop(session_id);
    const unusedSeconds = price.minutes * 60 - 601;
    const expected = Math.floor((price.price_fen * unusedSeconds) / (price.minutes * 60));
    expect(stopped?.status).toBe('stopped');
    expect(stopped?.refund_fen).toBe(expected);
    expect(await balance(member)).toBe(before - price.price_fen + expected);
    expect((await orderRow(database.db, order.id)).refunded_fen).toBe(expected);
    expect(await service.stop(session_id)).toBeNull();
    expect((await deviceRow(database.db, 6)).status).toBe('idle');
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it('a start command never sent (crash between commit and dispatch) is sent by the scheduler', async () => {
    const { session_id, price } = await payFromWallet(database.db, member, 2, clock);
    const r = await service.tick();
    expect(r.dispatched).toBe(1);
    await until(async () => (await session(session_id)).status === 'running', 'ack');
    advance(price.minutes * 60_000);
    await service.tick();
    expect((await session(session_id)).status).toBe('ended');
  });

  it('an acknowledgement after the deadline refund stops the device again', async () => {
    gateway.setMode('XH-CP-0001', 'silent');
    const { session_id } = await payFromWallet(database.db, member, 1, clock);
    await service.dispatch(session_id);
    advance(ACK_TIMEOUT_MS);
    await service.tick();
    expect((await session(session_id)).status).toBe('failed');
    gateway.setMode('XH-CP-0001', 'normal');
    await service.handle({ type: 'ack', serial: 'XH-CP-0001', command_id: `start-${session_id}`, at: clock });
    expect((await session(session_id)).status).toBe('failed');
    expect((await gateway.status('XH-CP-0001')).running).toBe(false);
    await assertLedgerInvariants(database.db, { settled: true });
  });
  it("an acknowledgement sent by another device's serial changes nothing; the device's own starts the run", async () => {
    gateway.setMode('XH-CP-0001', 'silent');
    const { order, session_id } = await payFromWallet(database.db, member, 1, clock);
    await service.dispatch(session_id);
    const ack = (serial: string) =>
      service.handle({ type: 'ack', serial, command_id: `start-${session_id}`, at: clock });
    await ack('XH-CP-0002');
    await ack('NO-SUCH-DEVICE');
    expect((await session(session_id)).status).toBe('starting');
    expect((await orderRow(database.db, order.id)).status).toBe('paid');
    const [other] = await database.db.select().from(devices).where(eq(devices.serial, 'XH-CP-0002'));
    expect(other!.status).not.toBe('running');
    await ack('XH-CP-0001');
    expect((await session(session_id)).status).toBe('running');
    expect((await orderRow(database.db, order.id)).status).toBe('started');
    await ack('XH-CP-0001'); // a repeated acknowledgement changes nothing more
    expect((await session(session_id)).started_at?.getTime()).toBe(clock.getTime());
    gateway.setMode('XH-CP-0001', 'normal');
    expect(await service.stop(session_id)).not.toBeNull();
  });
});

describe('acknowledgements and start commands in batches', () => {
  it('acknowledgements that arrive together are written in fewer statements, each session as on its own', async () => {
    const serials = ['XH-CP-0003', 'XH-CP-0004', 'XH-MC-0002'] as const;
    const ids = [4, 5, 6];
    for (const s of serials) gateway.setMode(s, 'silent');
    const paid = [];
    for (const id of ids) paid.push(await payFromWallet(database.db, member, id, clock));
    await Promise.all(paid.map((p) => service.dispatch(p.session_id)));
    const counter = statementCounter(database.db)!;
    const before = counter.count;
    // Three acknowledgements and a wrong serial's in one turn: written together, in one statement.
    await Promise.all([
      ...paid.map((p, i) =>
        service.handle({ type: 'ack', serial: serials[i]!, command_id: `start-${p.session_id}`, at: clock }),
      ),
      service.handle({
        type: 'ack',
        serial: 'XH-CP-0001',
        command_id: `start-${paid[0]!.session_id}`,
        at: clock,
      }),
    ]);
    // One acknowledgement statement, and the wrong serial's lookup (its session is not that device's).
    expect(counter.count - before).toBe(2);
    for (const p of paid) {
      expect((await session(p.session_id)).status).toBe('running');
      expect((await session(p.session_id)).started_at?.getTime()).toBe(clock.getTime());
      expect((await orderRow(database.db, p.order.id)).status).toBe('started');
    }
    for (const id of ids) expect((await deviceRow(database.db, id)).status).toBe('running');
    expect((await deviceRow(database.db, 1)).status).not.toBe('running');
    for (const s of serials) gateway.setMode(s, 'normal');
    for (const p of paid) expect(await service.stop(p.session_id)).not.toBeNull();
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it("in one statement, a session acknowledged under another device's serial too starts by its own only", async () => {
    gateway.setMode('XH-CP-0002', 'silent');
    const { session_id } = await payFromWallet(database.db, member, 2, clock);
    await service.dispatch(session_id);
    const ack = (serial: string) => ({ session_id, serial, at: clock });
    const [wrong, own, again] = await markRunningMany(database.db, [
      ack('XH-CP-0001'),
      ack('XH-CP-0002'),
      ack('XH-CP-0002'),
    ]);
    expect(wrong).toBeNull();
    expect(own).toMatchObject({ id: session_id, device_id: 2 });
    expect(again).toBeNull(); // the same acknowledgement twice changed the session once
    expect((await session(session_id)).status).toBe('running');
    gateway.setMode('XH-CP-0002', 'normal');
    expect(await service.stop(session_id)).not.toBeNull();
  });

  it('a session dispatched twice at once, in one batch or two, has its start command sent once', async () => {
    gateway.setMode('XH-CP-0001', 'silent');
    gateway.setMode('XH-CP-0002', 'silent');
    const a = await payFromWallet(database.db, member, 1, clock);
    const b = await payFromWallet(database.db, member, 2, clock);
    const mark = sentMarker(database.db, now);
    // a alone first; then a again and b twice, together in the next batch.
    const [a1, a2, b1, b2] = await Promise.all([
      mark(a.session_id),
      mark(a.session_id),
      mark(b.session_id),
      mark(b.session_id),
    ]);
    expect(a1).toMatchObject({ serial: 'XH-CP-0001', minutes: a.price.minutes });
    expect(a2).toBeNull();
    expect(b1).toMatchObject({ serial: 'XH-CP-0002', minutes: b.price.minutes });
    expect(b2).toBeNull();
    expect((await session(a.session_id)).command_sent_at?.getTime()).toBe(clock.getTime());
    gateway.setMode('XH-CP-0001', 'normal');
    gateway.setMode('XH-CP-0002', 'normal');
    // The scheduler has nothing left to send; the deadline refunds the two silent starts.
    expect((await service.tick()).dispatched).toBe(0);
    advance(ACK_TIMEOUT_MS);
    expect((await service.tick()).failed).toBe(2);
    await assertLedgerInvariants(database.db, { settled: true });
  });
});

describe('scheduler robustness', () => {
  it('a session whose refund the money service refuses is logged and skipped, not blocking the others', async () => {
    gateway.setMode('XH-CP-0002', 'silent');
    gateway.setMode('XH-MC-0002', 'silent');
    // A broken row: a session on an order that was never paid (refundOrder refuses it).
    const { device } = await priceFor(database.db, 2);
    const [unpaid] = await database.db
      .insert(orders)
      .values({
        order_no: `BROKEN${Date.now()}`,
        kind: 'consume',
        method: 'wallet',
        status: 'pending',
        member_id: member,
        merchant_id: device.merchant_id,
        venue_id: device.venue_id,
        device_id: 2,
        amount_fen: 100,
        minutes: 30,
      })
      .returning();
    const broken = await database.db.transaction((tx) =>
      beginSession(tx, { order_id: unpaid!.id, device_id: 2, member_id: member, minutes: 30, now: clock }),
    );
    advance(1000);
    const good = await payFromWallet(database.db, member, 6, clock);
    advance(ACK_TIMEOUT_MS + 1000);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const r = await service.tick();
      expect(r.failed).toBe(1);
      expect(errors).toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
    expect((await session(good.session_id)).status).toBe('failed');
    expect((await session(broken.id)).status).toBe('starting');
    // Clean up the broken row so later invariants hold.
    await database.db.delete(device_sessions).where(eq(device_sessions.id, broken.id));
    await database.db.delete(orders).where(eq(orders.id, unpaid!.id));
    await assertLedgerInvariants(database.db, { settled: true });
  });

  /** A second service on the same database whose gateway fails the next `failures` start sends (then the simulator). */
  function flakyService(failures: { left: number; sent: number }) {
    const flaky: ControllableGateway = Object.create(gateway, {
      start: {
        value: async (serial: string, minutes: number, command_id: string) => {
          if (failures.left-- > 0) throw new Error('MQTT gateway is not open');
          failures.sent++;
          return gateway.start(serial, minutes, command_id);
        },
      },
    });
    return createDevicesService({
      db: database.db,
      gateway: flaky,
      now,
      refundOrder,
      tickMs: 60_000,
      skipLocked: database.kind === 'postgres',
    });
  }

  it('a start command whose send fails is unmarked and sent again by the next pass, and the device runs', async () => {
    const failures = { left: 1, sent: 0 };
    const svc = flakyService(failures);
    const { session_id, order, price } = await payFromWallet(database.db, member, 3, clock);
    await expect(svc.dispatch(session_id)).rejects.toThrow('MQTT gateway is not open');
    expect((await session(session_id)).command_sent_at).toBeNull();
    advance(1000);
    expect((await svc.tick()).dispatched).toBe(1);
    expect(failures.sent).toBe(1);
    await until(async () => (await session(session_id)).status === 'running', 'ack');
    advance(price.minutes * 60_000);
    await service.tick();
    expect((await session(session_id)).status).toBe('ended');
    expect((await orderRow(database.db, order.id)).refunded_fen).toBe(0);
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it('a pass counts as dispatched only the start commands it sent itself', async () => {
    const { session_id } = await payFromWallet(database.db, member, 3, clock);
    const starts: string[] = [];
    const counting: ControllableGateway = Object.create(gateway, {
      start: { value: async (serial: string) => void starts.push(serial) },
    });
    const ctx = {
      db: database.db,
      gateway: counting,
      now,
      refundOrder,
      skipLocked: database.kind === 'postgres',
    };
    // Another caller (a pay's own dispatch, another instance) marked it between this pass's read and its mark.
    expect(await tick({ ...ctx, markSent: async () => null })).toMatchObject({ dispatched: 0 });
    expect(starts).toEqual([]);
    expect(await tick({ ...ctx, markSent: sentMarker(database.db, now) })).toMatchObject({ dispatched: 1 });
    expect(starts).toHaveLength(1);
    expect((await session(session_id)).command_sent_at).not.toBeNull();
    // Never delivered, so never acknowledged: refunded at the deadline.
    advance(ACK_TIMEOUT_MS + 1000);
    await service.tick();
    expect((await session(session_id)).status).toBe('failed');
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it('a send that keeps failing: the pass still ends what is due, and after the deadline the session is refunded, never sent', async () => {
    const failures = { left: Infinity, sent: 0 };
    const svc = flakyService(failures);
    // A session due for its refund (sent, never acknowledged) and one whose sends fail, not yet due.
    gateway.setMode('XH-CP-0004', 'silent');
    const due = await payFromWallet(database.db, member, 5, clock);
    await service.dispatch(due.session_id);
    advance(ACK_TIMEOUT_MS - 5000);
    const failing = await payFromWallet(database.db, member, 4, clock);
    await expect(svc.dispatch(failing.session_id)).rejects.toThrow('MQTT gateway is not open');
    advance(6000);
    await expect(svc.tick()).rejects.toThrow('MQTT gateway is not open');
    expect((await session(due.session_id)).status).toBe('failed');
    expect((await session(failing.session_id)).status).toBe('starting');
    // Past its own deadline: refunded by the pass, and no send is tried for it any more.
    advance(ACK_TIMEOUT_MS);
    const r = await svc.tick();
    expect(r).toMatchObject({ dispatched: 0, failed: 1 });
    expect(await svc.dispatch(failing.session_id)).toBe(false);
    expect(failures.sent).toBe(0);
    const failed = await session(failing.session_id);
    expect([failed.status, failed.command_sent_at]).toEqual(['failed', null]);
    expect((await orderRow(database.db, failing.order.id)).status).toBe('refunded');
    await assertLedgerInvariants(database.db, { settled: true });
  });

  it('a stop waits for the start commands being sent before it closes the gateway', async () => {
    const sim = createSimulatorGateway({
      now,
      ackDelayMs: 5,
      heartbeatMs: 60_000,
      listSerials: async () => ['XH-MC-0002'],
    });
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const gated: ControllableGateway = Object.create(sim, {
      start: {
        value: async (serial: string, minutes: number, command_id: string) => {
          events.push('sending');
          await held;
          await sim.start(serial, minutes, command_id);
          events.push('sent');
        },
      },
      close: { value: async () => (events.push('closed'), sim.close()) },
    });
    const svc = createDevicesService({
      db: database.db,
      gateway: gated,
      now,
      refundOrder,
      tickMs: 60_000,
      skipLocked: database.kind === 'postgres',
    });
    const stop = await svc.start();
    const { session_id } = await payFromWallet(database.db, member, 6, clock);
    const dispatched = svc.dispatch(session_id);
    await until(async () => events.includes('sending'), 'the send to begin');
    const stopped = stop();
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual(['sending']);
    release();
    await dispatched;
    await stopped;
    expect(events).toEqual(['sending', 'sent', 'closed']);
    // The simulator's device ran it; this service's own listener is gone, so the shared service applies the ack.
    await service.handle({ type: 'ack', serial: 'XH-MC-0002', command_id: `start-${session_id}`, at: clock });
    expect((await session(session_id)).status).toBe('running');
    await service.stop(session_id);
    await assertLedgerInvariants(database.db, { settled: true });
  });

  // PostgreSQL only: PGlite runs one transaction at a time, so a pass never finds a row another one holds.
  onPostgres(
    'a pass asked for while another runs waits for it: what was due is done when it resolves',
    async () => {
      const { order, session_id, price } = await payFromWallet(database.db, member, 4, clock);
      await service.dispatch(session_id);
      await until(async () => (await session(session_id)).status === 'running', 'ack');
      advance(price.minutes * 60_000 + 1000);
      // Another writer holds the order: the first pass claims the due session, then waits on it.
      let release!: () => void;
      const holder = database.db.transaction(async (tx) => {
        await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, order.id)).for('update');
        await new Promise<void>((ok) => (release = ok));
      });
      await until(async () => release, 'the order held');
      const settledOrder: string[] = [];
      const first = service.tick().finally(() => settledOrder.push('first'));
      for (let i = 0; ; i++) {
        const waiting = (await database.db.execute(
          sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%update "orders"%'`,
        )) as unknown as { rows: unknown[] };
        if (waiting.rows.length > 0) break;
        if (i > 200) throw new Error('the first pass never waited on the order');
        await new Promise((ok) => setTimeout(ok, 25));
      }
      // The second pass would skip the claimed session (SKIP LOCKED) and return at once, before the first commits;
      // it must return only after the first. Time for a pass that does not wait to show it (no figure is asserted).
      const second = service.tick().finally(() => settledOrder.push('second'));
      await Promise.race([second, new Promise((ok) => setTimeout(ok, 300))]);
      release();
      await holder;
      const [a, b] = await Promise.all([first, second]);
      expect(settledOrder).toEqual(['first', 'second']);
      expect({ first: a.ended, second: b.ended }).toEqual({ first: 1, second: 0 });
      expect((await session(session_id)).status).toBe('ended');
      expect((await orderRow(database.db, order.id)).status).toBe('completed');
      await assertLedgerInvariants(database.db, { settled: true });
    },
  );
});

describe('restart', () => {
  it('a restart during a running session ends it exactly once, with two schedulers racing', async () => {
    const { order, session_id, price } = await payFromWallet(database.db, member, 3, clock);
    await service.dispatch(session_id);
    await until(async () => (await session(session_id)).status === 'running', 'ack');
    await stopService(); // the "crash": scheduler and gateway gone

    advance(price.minutes * 60_000 + 5000);
    const a = makeService();
    const b = makeService();
    const [ra, rb] = await Promise.all([a.svc.tick(), b.svc.tick()]);
    expect(ra.ended + rb.ended).toBe(1);
    const s = await session(session_id);
    expect(s.status).toBe('ended');
    expect(s.ended_at?.getTime()).toBe(clock.getTime());
    expect((await orderRow(database.db, order.id)).status).toBe('completed');
    expect((await a.svc.tick()).ended + (await b.svc.tick()).ended).toBe(0);
    await assertLedgerInvariants(database.db, { settled: true });
    ({ gw: gateway, svc: service } = a);
    stopService = await service.start();
  });
});
