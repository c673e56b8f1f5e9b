/**
 * The devices scheduler: sends unsent start commands, fails sessions whose acknowledgement deadline passed (with
 * their refund) and ends sessions whose time is up, all read from the database on each tick. Nothing is kept only
 * in memory: a restarted or a second instance picks up where the first left off.
 */
import { and, asc, eq, gt, isNull, lte, notInArray, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { batched, rowsByKey } from '../../lib/batch';
import { prebuiltSql } from '../../db/prebuilt';
import { device_sessions, devices } from '../../db/schema';
import type { DeviceGateway } from './gateway';
import { endSession, failSession, REFUND_REASONS, startCommandId, type RefundOrder } from './lifecycle';

/** What the scheduler works with: the database, the gateway it sends commands to, the clock and the refund. */
export interface SchedulerContext {
  db: Db;
  gateway: DeviceGateway;
  now: () => Date;
  refundOrder: RefundOrder;
  /** PostgreSQL: lock due rows with SKIP LOCKED so several instances share the work. PGlite has one connection. */
  skipLocked?: boolean;
  /** `sentMarker(db, now)`: marks a session's start command sent, or answers null if it was not this caller's. */
  markSent: MarkSent;
}

export type MarkSent = (session_id: number) => Promise<{ minutes: number; serial: string } | null>;

export interface TickResult {
  /** Start commands this pass sent (not those another caller had marked first, nor those whose send failed). */
  dispatched: number;
  failed: number;
  ended: number;
}

type DueStatus = 'starting' | 'running';

const BATCH = 50;

const markSent = prebuiltSql<{ ids: number[]; now: string }, { id: number; minutes: number; serial: string }>(
  (p) => sql`
    update ${device_sessions} set command_sent_at = ${p.now}::timestamptz
    from ${devices}
    where ${device_sessions.id} = any(${p.ids}::int[]) and ${device_sessions.status} = 'starting'
      and ${device_sessions.command_sent_at} is null
      and (${device_sessions.ack_deadline} is null or ${device_sessions.ack_deadline} > ${p.now}::timestamptz)
      and ${devices.id} = ${device_sessions.device_id}
    returning ${device_sessions.id}, ${device_sessions.minutes}, ${devices.serial}`,
);

/** A start command whose send failed: unsent again, for the next pass (while the session is still starting). */
const unmarkSent = prebuiltSql<{ id: number }, never>(
  (p) => sql`
    update ${device_sessions} set command_sent_at = null
    where ${device_sessions.id} = ${p.id} and ${device_sessions.status} = 'starting'`,
);

/**
 * Marks sessions' start commands sent and reads their devices' serials, in one statement for the sessions whose
 * dispatch came while the previous one was being written (server/lib/batch.ts): every pay's start command comes
 * through here. A session comes back only to the one caller that marked it, and only before its acknowledgement
 * deadline: after it, the session is refunded, never started.
 */
export function sentMarker(db: Db, now: () => Date): MarkSent {
  return batched(async (ids: number[]) => {
    const marked = rowsByKey(await markSent(db, { ids, now: now().toISOString() }), (r) => r.id);
    return ids.map((id) => marked(id));
  });
}

/**
 * Sends the start command of a `starting` session; true when this call sent it. Safe to call twice or to race the
 * scheduler: only the caller that marks `command_sent_at` sends. A send that fails (the broker unreachable, the gateway closed) unmarks the
 * session, so the scheduler's next pass, on this instance or another, sends it again until the acknowledgement
 * deadline; after that the session is refunded. A device runs a session's start once however often it gets it
 * (docs/device-protocol.md, "Idempotency"), so a send that failed after all reached the device does no harm.
 */
export async function dispatch(ctx: SchedulerContext, session_id: number): Promise<boolean> {
  const s = await ctx.markSent(session_id);
  if (!s) return false;
  try {
    await ctx.gateway.start(s.serial, s.minutes, startCommandId(session_id));
    return true;
  } catch (err) {
    await unmarkSent(ctx.db, { id: session_id }).catch((e: unknown) =>
      console.error(`session ${session_id}: could not mark its start command unsent again:`, e),
    );
    throw err;
  }
}

/** Ids of sessions due for a transition (no lock: each one is locked and re-checked in its own transaction). */
async function dueIds(db: Db, status: DueStatus, at: Date, skip: Set<number>): Promise<number[]> {
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
 * Runs `step` on one due session in its own transaction, the row locked first (SKIP LOCKED on PostgreSQL, so
 * another instance working on it is passed over, and re-checked to still be in `status`).
 */
async function claimAndStep(
  ctx: SchedulerContext,
  status: DueStatus,
  id: number,
  step: (tx: Tx, id: number) => Promise<boolean>,
): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const q = tx
      .select({ id: device_sessions.id })
      .from(device_sessions)
      .where(and(eq(device_sessions.id, id), eq(device_sessions.status, status)));
    const [locked] = ctx.skipLocked ? await q.for('update', { skipLocked: true }) : await q.for('update');
    return locked ? step(tx, id) : false;
  });
}

/**
 * Runs `step` on each due session, one transaction per session; one session that fails (a refund the money
 * service refuses) is logged and skipped instead of blocking the others. Returns how many changed.
 */
async function drain(
  ctx: SchedulerContext,
  status: DueStatus,
  at: Date,
  step: (tx: Tx, id: number) => Promise<boolean>,
): Promise<number> {
  const skip = new Set<number>();
  let done = 0;
  for (;;) {
    const ids = await dueIds(ctx.db, status, at, skip);
    if (ids.length === 0) return done;
    for (const id of ids) {
      skip.add(id);
      try {
        if (await claimAndStep(ctx, status, id, step)) done++;
      } catch (err) {
        console.error(`device session ${id}: ${status} transition failed (retried next tick):`, err);
      }
    }
  }
}

/** One scheduler pass: unsent commands, missed acknowledgement deadlines, sessions due to end. */
export async function tick(ctx: SchedulerContext): Promise<TickResult> {
  const at = ctx.now();
  const result: TickResult = { dispatched: 0, failed: 0, ended: 0 };

  const unsent = await ctx.db
    .select({ id: device_sessions.id })
    .from(device_sessions)
    .where(
      and(
        eq(device_sessions.status, 'starting'),
        isNull(device_sessions.command_sent_at),
        or(isNull(device_sessions.ack_deadline), gt(device_sessions.ack_deadline, at)),
      ),
    )
    .limit(BATCH);
  // Together, so their marks go in one statement (server/lib/batch.ts), not one turn of the event loop each.
  const sent = await Promise.allSettled(unsent.map(({ id }) => dispatch(ctx, id)));
  result.dispatched = sent.filter((o) => o.status === 'fulfilled' && o.value).length;

  // Deadlines and ends even when a send failed: a gateway that keeps failing must not keep sessions from ending.
  result.failed = await drain(ctx, 'starting', at, (tx, id) =>
    failSession(tx, ctx.refundOrder, id, REFUND_REASONS.noAck, at),
  );
  result.ended = await drain(ctx, 'running', at, (tx, id) => endSession(tx, id, at));
  const failed = sent.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
  return result;
}

/**
 * Runs `pass` one at a time in this process: `run()` waits for the pass in flight, then runs its own, so what was
 * due when it was called is done when it resolves (another pass holding a row would otherwise make this one skip
 * it, `SKIP LOCKED`, and return before that row's change is committed).
 */
export function oneAtATime<T>(pass: () => Promise<T>) {
  let tail: Promise<unknown> = Promise.resolve();
  let pending = 0;
  return {
    run(): Promise<T> {
      pending++;
      const p = tail.then(pass).finally(() => {
        pending--;
      });
      tail = p.catch(() => undefined);
      return p;
    },
    get busy() {
      return pending > 0;
    },
    /** Resolves once every pass asked for so far is over. */
    get settled(): Promise<unknown> {
      return tail;
    },
  };
}

/**
 * Runs `passes` every `tickMs`, never two at once (a pass running or asked for when the next is due skips that
 * one); the returned function stops the timer and resolves once the passes in flight are over.
 */
export function runPeriodically(
  passes: ReturnType<typeof oneAtATime<unknown>>,
  tickMs: number,
): () => Promise<void> {
  let stopped = false;
  const timer = setInterval(() => {
    if (passes.busy || stopped) return;
    passes.run().catch((err) => console.error('device scheduler tick failed:', err));
  }, tickMs);
  timer.unref?.();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await passes.settled;
  };
}
