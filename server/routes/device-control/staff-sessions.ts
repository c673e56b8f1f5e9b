/**
 * Device sessions as staff see them: the answer of a remote start or stop (`StaffSession`), waiting for the
 * device's acknowledgement, and the live board of a merchant's devices. A start answers only once the device
 * acknowledged, refused, or its deadline passed (then the session is failed here and its money returned, the same
 * conditional step the scheduler takes, so whichever runs first does it once).
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { BoardDevice, StaffSession } from '../../../src/domain/device-control.schema';
import type { Db } from '../../db/client';
import { device_sessions, devices, orders, venues } from '../../db/schema';
import { failSession, REFUND_REASONS } from '../../services/devices/lifecycle';
import { ACTIVE_SESSION_STATUSES, isOnline } from '../../services/devices/sessions';
import { refundOrder } from '../../services/orders';
import { publicStatus } from '../public/public.routes';

/** The longest a start request waits for the acknowledgement (under the client's 10 s timeout). */
export const START_WAIT_MS = 8000;
const POLL_MS = 100;

export function refundTo(method: string): StaffSession['refund_to'] {
  if (method === 'cash') return 'cash';
  if (method === 'wallet') return 'wallet';
  // A WeChat payment is refunded back to the member's WeChat through the refund outbox (docs/decisions.md D22).
  if (method === 'wechat') return 'wechat';
  return 'none';
}

/** The session of an order with its device and order figures, or undefined. */
export async function staffSessionOf(db: Db, orderId: number): Promise<StaffSession | undefined> {
  const [r] = await db
    .select({ s: device_sessions, o: orders, device_name: devices.name })
    .from(device_sessions)
    .innerJoin(orders, eq(orders.id, device_sessions.order_id))
    .innerJoin(devices, eq(devices.id, device_sessions.device_id))
    .where(eq(device_sessions.order_id, orderId));
  if (!r) return undefined;
  return {
    order_no: r.o.order_no,
    kind: r.o.kind === 'service' ? 'service' : 'consume',
    method: r.o.method,
    order_status: r.o.status,
    amount_fen: r.o.amount_fen,
    refunded_fen: r.o.refunded_fen,
    device_id: r.s.device_id,
    device_name: r.device_name,
    minutes: r.s.minutes,
    status: r.s.status,
    started_at: r.s.started_at?.toISOString() ?? null,
    ends_at: r.s.ends_at?.toISOString() ?? null,
    refund_fen: r.s.refund_fen,
    refund_to: refundTo(r.o.method),
    failure_reason: r.s.failure_reason ?? r.o.failure_reason,
  };
}

/** Fails a `starting` session whose acknowledgement deadline has passed (a no-op if it moved on meanwhile). */
export async function failIfOverdue(db: Db, orderId: number, now: Date): Promise<void> {
  const [s] = await db
    .select({
      id: device_sessions.id,
      status: device_sessions.status,
      deadline: device_sessions.ack_deadline,
    })
    .from(device_sessions)
    .where(eq(device_sessions.order_id, orderId));
  if (!s || s.status !== 'starting' || !s.deadline || s.deadline.getTime() > now.getTime()) return;
  await db.transaction((tx) => failSession(tx, refundOrder, s.id, REFUND_REASONS.noAck, now));
}

/** Waits until the session is no longer `starting` (acknowledged, refused, or overdue and failed), at most `waitMs`. */
export async function awaitAcknowledgement(
  db: Db,
  orderId: number,
  now: () => Date,
  waitMs = START_WAIT_MS,
): Promise<StaffSession | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    await failIfOverdue(db, orderId, now());
    const view = await staffSessionOf(db, orderId);
    if (!view || view.status !== 'starting' || Date.now() >= until) return view;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Whole minutes left (rounded up), from the session's end or, before the acknowledgement, its length. */
export function minutesLeft(endsAt: Date | null, minutes: number, now: Date): number {
  if (!endsAt) return minutes;
  return Math.max(0, Math.ceil((endsAt.getTime() - now.getTime()) / 60_000));
}

/** The live board: the devices matching `where`, each with its starting or running session. */
export async function deviceBoard(db: Db, where: ReturnType<typeof and>, now: Date): Promise<BoardDevice[]> {
  const rows = await db
    .select({ d: devices, venue_name: venues.name })
    .from(devices)
    .innerJoin(venues, eq(venues.id, devices.venue_id))
    .where(where)
    .orderBy(asc(devices.venue_id), asc(devices.name), asc(devices.id))
    .limit(500);
  const ids = rows.map((r) => r.d.id);
  const active =
    ids.length === 0
      ? []
      : await db
          .select({ s: device_sessions, o: orders })
          .from(device_sessions)
          .innerJoin(orders, eq(orders.id, device_sessions.order_id))
          .where(
            and(
              inArray(device_sessions.device_id, ids),
              inArray(device_sessions.status, ACTIVE_SESSION_STATUSES),
            ),
          );
  const byDevice = new Map(active.map((a) => [a.s.device_id, a]));
  return rows.map(({ d, venue_name }) => {
    const online = isOnline(d.last_heartbeat_at, d.status, now);
    const a = byDevice.get(d.id);
    const item: BoardDevice = {
      id: d.id,
      name: d.name,
      serial: d.serial,
      status: publicStatus(d.status, online),
      online,
      venue_id: d.venue_id,
      venue_name,
    };
    if (a) {
      item.session = {
        order_no: a.o.order_no,
        ends_at: a.s.ends_at?.toISOString() ?? null,
        minutes_left: minutesLeft(a.s.ends_at, a.s.minutes, now),
        status: a.s.status === 'running' ? 'running' : 'starting',
        started_at: a.s.started_at?.toISOString() ?? null,
        minutes: a.s.minutes,
        method: a.o.method,
        amount_fen: a.o.amount_fen,
      };
    }
    return item;
  });
}
