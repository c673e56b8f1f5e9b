/**
 * What each gateway event does to the database. Every step is idempotent by session id (a conditional UPDATE on
 * the session's status), so an event delivered twice, or to two API instances sharing a broker, changes things
 * once. A device may only speak of its own sessions: an event naming another device's session is ignored (the
 * broker's ACL already makes the serial in the topic authentic).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { batched } from '../../lib/batch';
import { type Params, prebuilt } from '../../db/prebuilt';
import { device_sessions, devices } from '../../db/schema';
import type { GatewayEvent } from './gateway';
import {
  endSession,
  failSession,
  markRunningMany,
  parseCommandId,
  REFUND_REASONS,
  stopRunningSession,
  type Ack,
  type RefundOrder,
} from './lifecycle';

/** A device that reports its run over this long before the paid end was stopped early: the rest is refunded. */
const END_TOLERANCE_MS = 5_000;

export const FAULT_REASON = '设备故障，退还未使用时长';

export interface EventDeps {
  db: Db;
  refundOrder: RefundOrder;
  /** Tells a device to stop a session (an acknowledgement that came after the session failed). */
  sendStop(session: { id: number; device_id: number }): Promise<void>;
}

const sessionOnDevice = prebuilt((d, p: Params<{ id: number; serial: string }>) =>
  d
    .select({
      id: device_sessions.id,
      device_id: device_sessions.device_id,
      status: device_sessions.status,
      ends_at: device_sessions.ends_at,
    })
    .from(device_sessions)
    .innerJoin(devices, eq(devices.id, device_sessions.device_id))
    .where(and(eq(device_sessions.id, p.id), eq(devices.serial, p.serial))),
);

async function sessionOf(db: Db, session_id: number, serial: string) {
  const [s] = await sessionOnDevice(db, { id: session_id, serial });
  return s;
}

type MarkRunning = (ack: Ack) => Promise<unknown>;

async function onAck(deps: EventDeps, markRunning: MarkRunning, serial: string, commandId: string, at: Date) {
  const cmd = parseCommandId(commandId);
  if (!cmd || cmd.kind !== 'start') return;
  if (await markRunning({ session_id: cmd.session_id, serial, at })) return;
  // Acknowledged after the session failed (deadline passed, money refunded): nobody paid for this run.
  const now = await sessionOf(deps.db, cmd.session_id, serial);
  if (now?.status === 'failed') await deps.sendStop(now);
}

async function onRefused({ db, refundOrder }: EventDeps, serial: string, commandId: string, at: Date) {
  const cmd = parseCommandId(commandId);
  if (!cmd || cmd.kind !== 'start' || !(await sessionOf(db, cmd.session_id, serial))) return;
  await db.transaction((tx) => failSession(tx, refundOrder, cmd.session_id, REFUND_REASONS.refused, at));
}

async function onEnded({ db, refundOrder }: EventDeps, serial: string, session_id: number, at: Date) {
  const s = await sessionOf(db, session_id, serial);
  if (!s || s.status !== 'running' || !s.ends_at) return;
  if (at.getTime() >= s.ends_at.getTime() - END_TOLERANCE_MS) {
    await db.transaction((tx) => endSession(tx, s.id, at));
  } else {
    await db.transaction((tx) => stopRunningSession(tx, refundOrder, s.id, at));
  }
}

async function onFault({ db, refundOrder }: EventDeps, serial: string, session_id: number | null, at: Date) {
  if (session_id !== null) {
    const s = await sessionOf(db, session_id, serial);
    if (s?.status === 'starting') {
      await db.transaction((tx) => failSession(tx, refundOrder, s.id, FAULT_REASON, at));
    } else if (s?.status === 'running') {
      await db.transaction((tx) => stopRunningSession(tx, refundOrder, s.id, at, FAULT_REASON));
    }
  }
  // Out of service until the device reports online again (repaired, restarted); an operator's disable wins.
  await db
    .update(devices)
    .set({ status: 'fault' })
    .where(and(eq(devices.serial, serial), inArray(devices.status, ['idle', 'running', 'offline'])));
}

/** Back from offline or fault: running if a session is active on it, else idle. */
const backStatus = sql`case when exists (select 1 from ${device_sessions} where ${device_sessions.device_id} = ${devices.id} and ${device_sessions.status} in ('starting', 'running')) then 'running' else 'idle' end`;

/** Heartbeats (a batch of serials), online and offline notices: the devices' status and last heartbeat. */
async function onPresence(
  db: Db,
  event: Extract<GatewayEvent, { type: 'heartbeat' | 'online' | 'offline' }>,
) {
  if (event.type === 'heartbeat') {
    if (event.serials.length === 0) return;
    await db
      .update(devices)
      .set({
        last_heartbeat_at: event.at,
        status: sql`case when ${devices.status} = 'offline' then ${backStatus} else ${devices.status} end`,
      })
      .where(inArray(devices.serial, event.serials));
  } else if (event.type === 'online') {
    await db
      .update(devices)
      .set({
        last_heartbeat_at: event.at,
        status: sql`case when ${devices.status} in ('offline', 'fault') then ${backStatus} else ${devices.status} end`,
      })
      .where(eq(devices.serial, event.serial));
  } else {
    await db
      .update(devices)
      .set({ status: 'offline' })
      .where(and(eq(devices.serial, event.serial), inArray(devices.status, ['idle', 'running'])));
  }
}

export function createEventHandler(deps: EventDeps): (event: GatewayEvent) => Promise<void> {
  // Acknowledgements that arrive while one is being written go together in the next statement (server/lib/batch.ts).
  const markRunning = batched((acks: Ack[]) => markRunningMany(deps.db, acks));
  return async function handle(event: GatewayEvent): Promise<void> {
    switch (event.type) {
      case 'ack':
        return onAck(deps, markRunning, event.serial, event.command_id, event.at);
      case 'refused':
        return onRefused(deps, event.serial, event.command_id, event.at);
      case 'heartbeat':
      case 'online':
      case 'offline':
        return onPresence(deps.db, event);
      case 'ended':
        return onEnded(deps, event.serial, event.session_id, event.at);
      case 'fault':
        return onFault(deps, event.serial, event.session_id, event.at);
    }
  };
}
