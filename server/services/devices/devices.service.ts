/**
 * The devices service, assembled: the gateway connection, gateway events applied through the event queue
 * (device-events.ts), the scheduler (device-scheduler.ts) run periodically from `start`, and the member stop.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { devices } from '../../db/schema';
import { createEventQueue } from './device-event-queue';
import { createEventHandler } from './device-events';
import {
  dispatch,
  oneAtATime,
  runPeriodically,
  sentMarker,
  tick,
  type SchedulerContext,
  type TickResult,
} from './device-scheduler';
import type { DeviceGateway, GatewayEvent } from './gateway';
import { stopCommandId, stopRunningSession, type RefundOrder, type SessionRow } from './lifecycle';

export type { TickResult } from './device-scheduler';

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

export interface DevicesService {
  readonly gateway: DeviceGateway;
  /**
   * Sends the start command of a `starting` session. Call it after the transaction that ran `beginSession`
   * committed. Safe to call twice or to race the scheduler: only the caller that marks `command_sent_at` sends, and
   * only its call resolves to true.
   */
  dispatch(session_id: number): Promise<boolean>;
  /**
   * One scheduler pass (unsent commands, missed acknowledgement deadlines, sessions due to end), after the pass in
   * flight in this process if any: what was due at the call is done when it resolves.
   */
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

/** Sends a stop command to the session's device (best effort: a device that never hears it stops at the end). */
async function sendStop(db: Db, gateway: DeviceGateway, session: { id: number; device_id: number }) {
  const [d] = await db
    .select({ serial: devices.serial })
    .from(devices)
    .where(eq(devices.id, session.device_id));
  if (d?.serial) await gateway.stop(d.serial, stopCommandId(session.id));
}

export function createDevicesService(opts: DevicesServiceOptions): DevicesService {
  const { db, gateway, now, refundOrder } = opts;
  const tickMs = opts.tickMs ?? 1000;
  const ctx: SchedulerContext = {
    db,
    gateway,
    now,
    refundOrder,
    skipLocked: opts.skipLocked,
    markSent: sentMarker(db, now),
  };
  const handle = createEventHandler({ db, refundOrder, sendStop: (s) => sendStop(db, gateway, s) });
  const events = createEventQueue(handle);
  const passes = oneAtATime(() => tick(ctx));
  // The start commands being sent for pays already answered: a stop waits for them before it closes the gateway.
  const sending = new Set<Promise<unknown>>();

  return {
    gateway,
    dispatch(session_id) {
      const p = dispatch(ctx, session_id);
      const tracked = p.catch(() => undefined).finally(() => sending.delete(tracked));
      sending.add(tracked);
      return p;
    },
    tick: () => passes.run(),
    handle,
    settle: events.settle,
    async stop(session_id) {
      const s = await db.transaction((tx) => stopRunningSession(tx, refundOrder, session_id, now()));
      if (s) await sendStop(db, gateway, s).catch((err) => console.error('device stop command failed:', err));
      return s;
    },
    async start() {
      const unsubscribe = gateway.subscribe(events.track);
      await gateway.open();
      // The first heartbeats are written before the server takes requests, so devices show online at once.
      await events.settle();
      const stopTicks = runPeriodically(passes, tickMs);
      return async () => {
        // The passes and the sends first, still listening: an acknowledgement that comes meanwhile is applied.
        await stopTicks();
        await Promise.all(sending);
        unsubscribe();
        await gateway.close();
        await events.settle();
      };
    },
  };
}
