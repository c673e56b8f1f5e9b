/**
 * Device sessions: the part of a consumption that happens on the device. Owns the availability rule (online =
 * heartbeat under 90 s old) and the insertion of a `starting` session inside the payer's transaction. The rest of
 * the lifecycle (ack, refusal, timeout, end, stop) lives in `lifecycle.ts` and is driven from the database.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { device_sessions, devices } from '../../db/schema';
import { HttpError } from '../../lib/errors';

/** A device is online while its last heartbeat is younger than this (docs/decisions.md D8). */
export const ONLINE_WINDOW_MS = 90_000;
/** How long a start command may wait for the device's acknowledgement before the order is refunded. */
export const ACK_TIMEOUT_MS = 10_000;

export type Availability = 'ok' | 'offline' | 'busy' | 'fault' | 'disabled';

export const ACTIVE_SESSION_STATUSES = ['starting', 'running'] as const;

/** Chinese messages for each refusal, so every caller answers the same way. */
export const AVAILABILITY_MESSAGES: Record<Exclude<Availability, 'ok'>, { code: string; message: string }> = {
  offline: { code: 'DEVICE_OFFLINE', message: '设备离线，请稍后再试或换一台设备' },
  busy: { code: 'DEVICE_BUSY', message: '设备正在使用中，请稍后再试或换一台设备' },
  fault: { code: 'DEVICE_FAULT', message: '设备故障，暂时无法使用' },
  disabled: { code: 'DEVICE_DISABLED', message: '设备已停用' },
};

/** The 409 a caller throws for an unavailable device. */
export function deviceUnavailable(a: Exclude<Availability, 'ok'>): HttpError {
  const m = AVAILABILITY_MESSAGES[a];
  return new HttpError(409, m.code, m.message);
}

export function isOnline(lastHeartbeatAt: Date | null, status: string, now: Date): boolean {
  if (status === 'offline' || !lastHeartbeatAt) return false;
  return now.getTime() - lastHeartbeatAt.getTime() < ONLINE_WINDOW_MS;
}

/**
 * Whether a device can take a new session now. A missing device answers 'disabled' (callers check existence and
 * the venue first, with their own 404). 'busy' means a session is starting or running on it; the unique partial
 * index on device_sessions still decides the race between two payers.
 */
export async function checkDeviceAvailable(tx: Tx, device_id: number, now: Date): Promise<Availability> {
  const [d] = await tx
    .select({ status: devices.status, last_heartbeat_at: devices.last_heartbeat_at })
    .from(devices)
    .where(eq(devices.id, device_id));
  const first = availabilityOf(d, false, now);
  if (first !== 'ok') return first;
  const [active] = await tx
    .select({ id: device_sessions.id })
    .from(device_sessions)
    .where(
      and(eq(device_sessions.device_id, device_id), inArray(device_sessions.status, ACTIVE_SESSION_STATUSES)),
    )
    .limit(1);
  return availabilityOf(d, active !== undefined, now);
}

/** The availability rule on a device row already read (`busy`: a session is starting or running on it). */
export function availabilityOf(
  d: { status: string; last_heartbeat_at: Date | null } | undefined,
  busy: boolean,
  now: Date,
): Availability {
  if (!d || d.status === 'disabled') return 'disabled';
  if (d.status === 'fault') return 'fault';
  if (!isOnline(d.last_heartbeat_at, d.status, now)) return 'offline';
  return busy ? 'busy' : 'ok';
}

export interface BeginSessionInput {
  order_id: number;
  device_id: number;
  member_id: number | null;
  minutes: number;
  now: Date;
}

/** The row of a new `starting` session (ack deadline = now + ACK_TIMEOUT_MS); refuses a non-positive duration. */
export function startingSession(input: BeginSessionInput) {
  if (!Number.isSafeInteger(input.minutes) || input.minutes <= 0) {
    throw new RangeError(`minutes must be a positive integer, got ${input.minutes}`);
  }
  return {
    order_id: input.order_id,
    device_id: input.device_id,
    member_id: input.member_id,
    minutes: input.minutes,
    status: 'starting' as const,
    ack_deadline: new Date(input.now.getTime() + ACK_TIMEOUT_MS),
    created_at: input.now,
  };
}

/**
 * Inserts a `starting` session (ack deadline = now + ACK_TIMEOUT_MS) in the caller's transaction. Call
 * `deps.devices.dispatch(id)` after the commit. Idempotent per order: a second call for the same order returns the
 * existing session. Throws a 409 DEVICE_BUSY when another session is active on the device; the insert uses
 * ON CONFLICT DO NOTHING so the caller's transaction is still usable (PostgreSQL would abort it on a raw unique
 * violation) and may refund in it instead of rethrowing.
 */
export async function beginSession(tx: Tx, input: BeginSessionInput): Promise<{ id: number }> {
  const [row] = await tx
    .insert(device_sessions)
    .values(startingSession(input))
    .onConflictDoNothing()
    .returning({ id: device_sessions.id });
  if (row) return row;
  const [existing] = await tx
    .select({ id: device_sessions.id })
    .from(device_sessions)
    .where(eq(device_sessions.order_id, input.order_id));
  if (existing) return existing;
  throw deviceUnavailable('busy');
}
