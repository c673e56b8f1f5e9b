/**
 * The session lifecycle after `beginSession`, driven from the database so that a restart or a second instance
 * neither loses nor repeats a step: every transition is a conditional UPDATE on the session's current status inside
 * a transaction, so the second of two racing callers finds nothing to do.
 *
 *   starting --ack--> running --ends_at--> ended        (order completed)
 *   starting --refused / no ack by deadline--> failed    (full refund)
 *   running --member stops--> stopped                    (unused time refunded pro rata)
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { prebuiltSql } from '../../db/prebuilt';
import { rowsByKey } from '../../lib/batch';
import { device_sessions, devices, orders } from '../../db/schema';
import { proRata } from '../../../src/domain/money';

/** The refund of server/services/orders/refund.ts: balanced ledger entries, refunded_fen and status. */
export type RefundOrder = (
  tx: Tx,
  input: { order_id: number; amount_fen: number; reason: string },
) => Promise<void>;

export type SessionRow = typeof device_sessions.$inferSelect;

export const REFUND_REASONS = {
  noAck: '设备未响应，已自动退款',
  refused: '设备拒绝启动，已自动退款',
  stopped: '提前结束，退还未使用时长',
} as const;

/** Command ids are deterministic per session, so a command sent twice is recognised when answered twice. */
export const startCommandId = (sessionId: number) => `start-${sessionId}`;
export const stopCommandId = (sessionId: number) => `stop-${sessionId}`;

export function parseCommandId(commandId: string): { kind: 'start' | 'stop'; session_id: number } | null {
  const m = /^(start|stop)-(\d{1,10})$/.exec(commandId);
  if (!m) return null;
  return { kind: m[1] as 'start' | 'stop', session_id: Number(m[2]) };
}

const running = prebuiltSql<
  { ids: number[]; serials: string[]; ats: string[] },
  { id: number; order_id: number; device_id: number; serial: string }
>(
  (p) => sql`
    with a as (
      select v.id, v.serial, v.at, ${devices.id} as device_id
      from unnest(${p.ids}::int[], ${p.serials}::text[], ${p.ats}::timestamptz[]) as v(id, serial, at)
        join ${devices} on ${devices.serial} = v.serial),
    s as (
      update ${device_sessions} set status = 'running', started_at = a.at,
        ends_at = a.at + make_interval(mins => ${device_sessions.minutes})
      from a
      where ${device_sessions.id} = a.id and ${device_sessions.status} = 'starting'
        and ${device_sessions.device_id} = a.device_id
      returning ${device_sessions.id}, ${device_sessions.order_id}, ${device_sessions.device_id}, a.serial),
    o as (
      update ${orders} set status = 'started' from s
      where ${orders.id} = s.order_id and ${orders.status} = 'paid' returning 1),
    d as (
      update ${devices} set status = 'running' from s
      where ${devices.id} = s.device_id and ${devices.status} in ('idle', 'running') returning 1)
    select s.id, s.order_id, s.device_id, s.serial from s`,
);

export interface Ack {
  session_id: number;
  serial: string;
  at: Date;
}

/**
 * Devices acknowledged the start of their sessions: each session runs from its `at` for its minutes, its order is
 * `started`, its device `running`. One statement for all of them (the three conditional updates as CTEs, one
 * snapshot, atomic, so it needs no transaction of its own): every pay's acknowledgement comes through here, and on
 * the embedded database each statement costs the server's own thread. Answers, per acknowledgement, the session
 * when this call made the change; null when it was already done, the session had failed meanwhile (then the caller
 * tells the device to stop, since nobody is paying for that run), or it is not that device's session.
 */
export async function markRunningMany(
  db: Db | Tx,
  acks: readonly Ack[],
): Promise<({ id: number; order_id: number; device_id: number } | null)[]> {
  const rows = await running(db, {
    ids: acks.map((a) => a.session_id),
    serials: acks.map((a) => a.serial),
    ats: acks.map((a) => a.at.toISOString()),
  });
  const made = rowsByKey(rows, (r) => `${r.id}/${r.serial}`);
  return acks.map((a) => made(`${a.session_id}/${a.serial}`));
}

/**
 * The start failed (refused, or no acknowledgement by the deadline): the session fails and what is left of the
 * order's money goes back through `refundOrder`. Returns false when the session was no longer `starting`.
 */
export async function failSession(
  tx: Tx,
  refundOrder: RefundOrder,
  session_id: number,
  reason: string,
  at: Date,
): Promise<boolean> {
  const [s] = await tx
    .update(device_sessions)
    .set({ status: 'failed', ended_at: at, failure_reason: reason })
    .where(and(eq(device_sessions.id, session_id), eq(device_sessions.status, 'starting')))
    .returning();
  if (!s) return false;
  const [o] = await tx
    .select({ amount_fen: orders.amount_fen, refunded_fen: orders.refunded_fen })
    .from(orders)
    .where(eq(orders.id, s.order_id))
    .for('update');
  const left = o ? o.amount_fen - o.refunded_fen : 0;
  if (left > 0) await refundOrder(tx, { order_id: s.order_id, amount_fen: left, reason });
  await tx.update(device_sessions).set({ refund_fen: left }).where(eq(device_sessions.id, s.id));
  await tx.update(orders).set({ failure_reason: reason }).where(eq(orders.id, s.order_id));
  await tx
    .update(devices)
    .set({ status: 'idle' })
    .where(and(eq(devices.id, s.device_id), eq(devices.status, 'running')));
  return true;
}

/** A running session reached ends_at: it ends, the order is completed, the device idle. False if already done. */
export async function endSession(tx: Tx, session_id: number, at: Date): Promise<boolean> {
  const [s] = await tx
    .update(device_sessions)
    .set({ status: 'ended', ended_at: at })
    .where(and(eq(device_sessions.id, session_id), eq(device_sessions.status, 'running')))
    .returning();
  if (!s) return false;
  await tx
    .update(orders)
    .set({ status: 'completed' })
    .where(and(eq(orders.id, s.order_id), inArray(orders.status, ['paid', 'started'])));
  await tx
    .update(devices)
    .set({ status: 'idle' })
    .where(and(eq(devices.id, s.device_id), eq(devices.status, 'running')));
  return true;
}

/**
 * Unused part of a session's money: pro rata by whole unused seconds, rounded down (decision: seconds, not whole
 * minutes, so stopping right after the start returns nearly everything; floor so we never refund more than owed).
 */
export function unusedRefund(amount_fen: number, minutes: number, endsAt: Date, at: Date): number {
  const unusedSeconds = Math.max(
    0,
    Math.min(minutes * 60, Math.floor((endsAt.getTime() - at.getTime()) / 1000)),
  );
  return proRata(amount_fen, unusedSeconds, minutes * 60);
}

/**
 * The member stops a running session: it becomes `stopped` and the unused time is refunded pro rata to the
 * member's wallet via `refundOrder`; with nothing to refund the order is simply completed. Returns the stopped
 * session, or null when it was not running (the caller answers 409).
 */
export async function stopRunningSession(
  tx: Tx,
  refundOrder: RefundOrder,
  session_id: number,
  at: Date,
  reason: string = REFUND_REASONS.stopped,
): Promise<SessionRow | null> {
  const [locked] = await tx
    .select()
    .from(device_sessions)
    .where(and(eq(device_sessions.id, session_id), eq(device_sessions.status, 'running')))
    .for('update');
  if (!locked || !locked.ends_at) return null;
  const [o] = await tx
    .select({ amount_fen: orders.amount_fen, refunded_fen: orders.refunded_fen })
    .from(orders)
    .where(eq(orders.id, locked.order_id))
    .for('update');
  if (!o) return null;
  const refund = Math.min(
    unusedRefund(o.amount_fen, locked.minutes, locked.ends_at, at),
    o.amount_fen - o.refunded_fen,
  );
  const [s] = await tx
    .update(device_sessions)
    .set({ status: 'stopped', ended_at: at, refund_fen: refund })
    .where(and(eq(device_sessions.id, session_id), eq(device_sessions.status, 'running')))
    .returning();
  if (!s) return null;
  if (refund > 0) {
    await refundOrder(tx, { order_id: s.order_id, amount_fen: refund, reason });
  } else {
    await tx
      .update(orders)
      .set({ status: 'completed' })
      .where(and(eq(orders.id, s.order_id), inArray(orders.status, ['paid', 'started'])));
  }
  await tx
    .update(devices)
    .set({ status: 'idle' })
    .where(and(eq(devices.id, s.device_id), eq(devices.status, 'running')));
  return s;
}
