/**
 * The devices service: owns the gateway connection, turns gateway events (acks, refusals, heartbeats, offline
 * notices) into session and device rows, and runs the scheduler that drives session ends, acknowledgement
 * deadlines and unsent start commands from the database. Nothing here is kept only in memory: a restarted or a
 * second instance picks up where the first left off.
 */
import { and, asc, eq, isNull, lte, notInArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { device_sessions, devices } from '../../db/schema';
import type { DeviceGateway, GatewayEvent } from './gateway';
import { createEventHandler } from './device-events';
import {
  endSession,
  failSession,
  REFUND_REASONS,
  startCommandId,
  stopCommandId,
  stopRunningSession,
  type RefundOrder,
  type SessionRow,
} from './lifecycle';

export interface DevicesServiceOptions {
  db: Db;
  gateway: DeviceGateway;
  now: () => Date;
  refundOrder: RefundOrder;
  /** Scheduler period; default 1000 ms. */
  tickMs?: number;
  /** PostgreSQL: lock due rows with SKIP LOCKED so several instances share the work. PGlite has one connection. */
  skipLocked?: boolean;
}

export interface TickResult {
  dispatched: number;
  failed: number;
  ended: number;
}

export interface DevicesService {
  readonly gateway: DeviceGateway;
  /**
   * Sends the start command of a `starting` session. Call it after the transaction that ran `beginSession`
   * committed. Safe to call twice or to race the scheduler: only the caller that marks `command_sent_at` sends.
   */
  dispatch(session_id: number): Promise<void>;
  /** One scheduler pass: unsent commands, missed acknowledgement deadlines, sessions due to end. */
  tick(): Promise<TickResult>;
  /** Subscribes to the gateway, opens it and starts the periodic tick; the returned function undoes all that. */
  start(): Promise<() => Promise<void>>;
  /** Member stop: returns the stopped session, or null when the session was not running. */
  stop(session_id: number): Promise<SessionRow | null>;
  /** Resolves when every gateway event received so far has been written (tests). */
  settle(): Promise<void>;
  /** Applies one gateway event now (what the subscription does). */
  handle(event: GatewayEvent): Promise<void>;
}

const BATCH = 50;

export function createDevicesService(opts: DevicesServiceOptions): DevicesService {
  const { db, gateway, now, refundOrder } = opts;
  const tickMs = opts.tickMs ?? 1000;
  const pending = new Set<Promise<void>>();

  const serialOf = async (deviceId: number) => {
    const [d] = await db.select({ serial: devices.serial }).from(devices).where(eq(devices.id, deviceId));
    return d?.serial;
  };

  const sendStop = async (session: { id: number; device_id: number }) => {
    const serial = await serialOf(session.device_id);
    if (serial) await gateway.stop(serial, stopCommandId(session.id));
  };

  async function dispatch(session_id: number): Promise<void> {
    // Marked sent and the device's serial read in one statement: every pay's start command comes through here.
    const res = (await db.execute(sql`
      update ${device_sessions} set command_sent_at = ${now().toISOString()}::timestamptz
      from ${devices}
      where ${device_sessions.id} = ${session_id}::int and ${device_sessions.status} = 'starting'
        and ${device_sessions.command_sent_at} is null and ${devices.id} = ${device_sessions.device_id}
      returning ${device_sessions.id}, ${device_sessions.minutes}, ${devices.serial}`)) as unknown as {
      rows: { id: number; minutes: number; serial: string }[];
    };
    const s = res.rows[0];
    if (!s) return;
    // A send that throws leaves the session `starting`: the deadline refunds it, which is the safe outcome.
    await gateway.start(s.serial, s.minutes, startCommandId(s.id));
  }

  const handle = createEventHandler({ db, refundOrder, sendStop });

  /**
   * Applies a gateway event in the background, retrying a few times: an acknowledgement lost to a passing DB error
   * would otherwise leave a running device behind a session that gets refunded at its deadline.
   */
  const track = (event: GatewayEvent) => {
    const attempt = async () => {
      for (let i = 0; ; i++) {
        try {
          return await handle(event);
        } catch (err) {
          if (i >= 2) throw err;
          await new Promise((r) => setTimeout(r, 200 * (i + 1)));
        }
      }
    };
    const q = attempt().catch((err) =>
      console.error(`device event ${event.type} could not be applied:`, err),
    );
    pending.add(q);
    void q.finally(() => pending.delete(q));
  };

  /** Ids of sessions due for a transition (no lock: each one is locked and re-checked in its own transaction). */
  async function dueIds(status: 'starting' | 'running', at: Date, skip: Set<number>) {
    const column = status === 'starting' ? device_sessions.ack_deadline : device_sessions.ends_at;
    const rows = await db
      .select({ id: device_sessions.id })
      .from(device_sessions)
      .where(
        and(
          eq(device_sessions.status, status),
          lte(column, at),
          skip.size > 0 ? notInArray(device_sessions.id, [...skip]) : undefined,
        ),
      )
      .orderBy(asc(column))
      .limit(BATCH);
    return rows.map((r) => r.id);
  }

  /**
   * Runs `step` on each due session, one transaction per session: the row is locked first (SKIP LOCKED on
   * PostgreSQL, so another instance working on it is passed over), and one session that fails (a refund the money
   * service refuses) is logged and skipped instead of blocking the others.
   */
  async function drain(
    status: 'starting' | 'running',
    at: Date,
    step: (tx: Tx, id: number) => Promise<boolean>,
  ): Promise<number> {
    const skip = new Set<number>();
    let done = 0;
    for (;;) {
      const ids = await dueIds(status, at, skip);
      if (ids.length === 0) return done;
      for (const id of ids) {
        skip.add(id);
        try {
          const changed = await db.transaction(async (tx) => {
            const q = tx
              .select({ id: device_sessions.id })
              .from(device_sessions)
              .where(and(eq(device_sessions.id, id), eq(device_sessions.status, status)));
            const [locked] = opts.skipLocked
              ? await q.for('update', { skipLocked: true })
              : await q.for('update');
            return locked ? step(tx, id) : false;
          });
          if (changed) done++;
        } catch (err) {
          console.error(`device session ${id}: ${status} transition failed (retried next tick):`, err);
        }
      }
    }
  }

  async function tick(): Promise<TickResult> {
    const at = now();
    const result: TickResult = { dispatched: 0, failed: 0, ended: 0 };

    const unsent = await db
      .select({ id: device_sessions.id })
      .from(device_sessions)
      .where(and(eq(device_sessions.status, 'starting'), isNull(device_sessions.command_sent_at)))
      .limit(BATCH);
    for (const { id } of unsent) {
      await dispatch(id);
      result.dispatched++;
    }

    result.failed = await drain('starting', at, (tx, id) =>
      failSession(tx, refundOrder, id, REFUND_REASONS.noAck, at),
    );
    result.ended = await drain('running', at, (tx, id) => endSession(tx, id, at));
    return result;
  }

  return {
    gateway,
    dispatch,
    tick,
    handle,
    async settle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    async stop(session_id) {
      const s = await db.transaction((tx) => stopRunningSession(tx, refundOrder, session_id, now()));
      if (s) await sendStop(s).catch((err) => console.error('device stop command failed:', err));
      return s;
    },
    async start() {
      const unsubscribe = gateway.subscribe(track);
      await gateway.open();
      // The first heartbeats are written before the server takes requests, so devices show online at once.
      while (pending.size > 0) await Promise.all([...pending]);
      let running = false;
      let stopped = false;
      let inFlight: Promise<unknown> = Promise.resolve();
      const timer = setInterval(() => {
        if (running || stopped) return;
        running = true;
        inFlight = tick()
          .catch((err) => console.error('device scheduler tick failed:', err))
          .finally(() => {
            running = false;
          });
      }, tickMs);
      timer.unref?.();
      return async () => {
        stopped = true;
        clearInterval(timer);
        unsubscribe();
        await inFlight;
        await gateway.close();
        while (pending.size > 0) await Promise.all([...pending]);
      };
    },
  };
}
