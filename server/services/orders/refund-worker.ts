/**
 * The refund outbox worker (docs/money.md "WeChat refunds"): sends the refunds decided in committed transactions to
 * WeChat and asks WeChat about the ones still processing. Any number of instances share the outbox: each pass claims
 * due rows with `FOR UPDATE SKIP LOCKED` and pushes their `next_attempt_at` past a lease, in a short transaction of
 * its own; the WeChat call happens after that commit. A crash after the claim leaves the row due again once the lease
 * ends, and the resend carries the same out_refund_no, which WeChat answers with the refund it already has.
 */
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orders, wechat_refunds } from '../../db/schema';
import { WechatPayError, type Refund, type WechatPay } from '../../wechat/types';
import type { WechatRefundRow } from './refund-outbox';
import { applyRefundReport, type RefundReport } from './refund-settle';
import { spaceRequests } from './refund-spacing';

/** Waits after the n-th failed send (then an hour); a refund still refused after SEND_ATTEMPTS becomes `failed`. */
export const SEND_BACKOFF_MS = [5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000];
export const SEND_ATTEMPTS = 16;
/** How long a claimed row stays away from other workers while this one talks to WeChat. */
const LEASE_MS = 60_000;

export interface RefundWorkerOptions {
  db: Db;
  pay: Pick<WechatPay, 'refund' | 'queryRefund'> & Partial<Pick<WechatPay, 'applyAbnormalRefund'>>;
  now: () => Date;
  /** Poll period of the timer (default 1000 ms). */
  pollMs?: number;
  /** Rows claimed per pass (default 20). */
  batch?: number;
}

export interface RefundWorker {
  /** One pass: claims the due rows and handles them. Resolves with how many it handled. */
  runOnce(): Promise<number>;
  /** Runs a pass now unless one is running (passes never overlap within an instance). */
  kick(): Promise<number>;
  start(): () => Promise<void>;
}

export function backoffMs(attempts: number): number {
  return SEND_BACKOFF_MS[Math.min(attempts, SEND_BACKOFF_MS.length) - 1] ?? 3_600_000;
}

/** A WeChat error that resending the same request will not cure (a 4xx other than rate limiting). */
function isPermanent(err: unknown): err is WechatPayError {
  return (
    err instanceof WechatPayError &&
    err.status >= 400 &&
    err.status < 500 &&
    err.status !== 429 &&
    err.code !== 'FREQUENCY_LIMITED' &&
    err.code !== 'SYSTEM_ERROR'
  );
}

export const reportOf = (r: Refund): RefundReport => ({
  out_refund_no: r.out_refund_no,
  status: r.status,
  refund_id: r.refund_id,
  refund_fen: r.amount?.refund,
  total_fen: r.amount?.total,
  out_trade_no: r.out_trade_no,
});

/** Rows a pass sends: a refund request, or an abnormal refund's redirection. */
const SENDS: readonly WechatRefundRow['status'][] = ['pending', 'abnormal_pending'];

export function createRefundWorker(o: RefundWorkerOptions): RefundWorker {
  async function runOnce(): Promise<number> {
    const rows = await claim(o);
    for (const row of rows) {
      try {
        if (row.status === 'pending') await send(o, row);
        else if (row.status === 'abnormal_pending') await redirect(o, row);
        else await query(o, row);
      } catch (err) {
        await failed(o, row, err).catch((e: unknown) => console.error(`refund ${row.out_refund_no}:`, e));
      }
    }
    return rows.length;
  }

  let running: Promise<number> | undefined;
  let stopped = false;
  const kick = (): Promise<number> => {
    if (stopped) return Promise.resolve(0);
    running ??= runOnce()
      .catch((err: unknown) => {
        console.error('refund worker pass failed (retried next tick):', err);
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  return {
    runOnce,
    kick,
    start() {
      const timer = setInterval(() => void kick(), o.pollMs ?? 1000);
      timer.unref?.();
      return async () => {
        stopped = true;
        clearInterval(timer);
        await running;
      };
    },
  };
}

/** Claims the due rows for this pass under a lease (requests of one order spaced), in a short transaction. */
async function claim({ db, now, batch }: RefundWorkerOptions): Promise<WechatRefundRow[]> {
  return db.transaction(async (tx) => {
    const at = now();
    const due = await tx
      .select()
      .from(wechat_refunds)
      .where(
        and(
          inArray(wechat_refunds.status, ['pending', 'processing', 'abnormal_pending']),
          lte(wechat_refunds.next_attempt_at, at),
        ),
      )
      .orderBy(asc(wechat_refunds.next_attempt_at), asc(wechat_refunds.id))
      .limit(batch ?? 20)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    const { send, later } = await spaceRequests(tx, due, at);
    const lease = { next_attempt_at: new Date(at.getTime() + LEASE_MS), updated_at: at };
    const ids = (pick: (r: WechatRefundRow) => boolean) => due.filter(pick).map((r) => r.id);
    const sending = ids((r) => SENDS.includes(r.status) && send.has(r.id));
    const querying = ids((r) => r.status === 'processing');
    if (sending.length > 0)
      await tx
        .update(wechat_refunds)
        .set({ ...lease, attempts: sql`${wechat_refunds.attempts} + 1` })
        .where(inArray(wechat_refunds.id, sending));
    if (querying.length > 0)
      await tx.update(wechat_refunds).set(lease).where(inArray(wechat_refunds.id, querying));
    for (const [id, until] of later)
      await tx
        .update(wechat_refunds)
        .set({ next_attempt_at: until, updated_at: at })
        .where(eq(wechat_refunds.id, id));
    return due
      .filter((r) => r.status === 'processing' || send.has(r.id))
      .map((r) => (SENDS.includes(r.status) ? { ...r, attempts: r.attempts + 1 } : r));
  });
}

/** A send or query that did not get an answer: try again later (or give up sending, for staff). */
async function failed({ db, now }: RefundWorkerOptions, row: WechatRefundRow, err: unknown): Promise<void> {
  const at = now();
  const message =
    err instanceof Error
      ? `${(err as Partial<WechatPayError>).code ?? err.name}: ${err.message}`
      : String(err);
  const sending = SENDS.includes(row.status);
  const giveUp = sending && (isPermanent(err) || row.attempts >= SEND_ATTEMPTS);
  // A refused redirection goes back to abnormal (staff correct the card and apply again).
  const gaveUp = row.status === 'abnormal_pending' ? ('abnormal' as const) : ('failed' as const);
  const delay = sending ? backoffMs(row.attempts) : 60_000;
  await db
    .update(wechat_refunds)
    .set({
      ...(giveUp ? { status: gaveUp } : { next_attempt_at: new Date(at.getTime() + delay) }),
      last_error: message.slice(0, 300),
      updated_at: at,
    })
    .where(and(eq(wechat_refunds.id, row.id), eq(wechat_refunds.status, row.status)));
}

/** Sends a refund request to WeChat (the same out_refund_no on every resend) and settles what WeChat answers. */
async function send({ db, pay, now }: RefundWorkerOptions, row: WechatRefundRow): Promise<void> {
  const [order] = await db
    .select({ order_no: orders.order_no, amount_fen: orders.amount_fen })
    .from(orders)
    .where(eq(orders.id, row.order_id));
  if (!order) throw new Error(`refund ${row.out_refund_no}: order ${row.order_id} missing`);
  const at = now();
  await db
    .update(wechat_refunds)
    .set({ sent_at: sql`coalesce(${wechat_refunds.sent_at}, ${at})`, last_request_at: at })
    .where(eq(wechat_refunds.id, row.id));
  const answer = await pay.refund({
    out_trade_no: order.order_no,
    out_refund_no: row.out_refund_no,
    reason: row.reason.slice(0, 80),
    refund_fen: row.amount_fen,
    total_fen: order.amount_fen,
  });
  await applyRefundReport(db, reportOf(answer), now(), row.out_refund_no);
}

/** Staff's redirection of an abnormal refund (WeChat's apply-abnormal-refund), then settled as any answer. */
async function redirect({ db, pay, now }: RefundWorkerOptions, row: WechatRefundRow): Promise<void> {
  if (!row.wechat_refund_id || !row.abnormal_type || !pay.applyAbnormalRefund)
    throw new Error(`refund ${row.out_refund_no}: no WeChat refund id, redirection or client`);
  // The redirection is a request of its own: the query that follows waits from now (refund-settle.ts).
  await db.update(wechat_refunds).set({ sent_at: now() }).where(eq(wechat_refunds.id, row.id));
  const answer = await pay.applyAbnormalRefund({
    refund_id: row.wechat_refund_id,
    out_refund_no: row.out_refund_no,
    type: row.abnormal_type,
    ...(row.abnormal_type === 'USER_BANK_CARD'
      ? {
          bank_type: row.abnormal_bank_type ?? '',
          bank_account: row.abnormal_bank_account ?? '',
          real_name: row.abnormal_real_name ?? '',
          key_serial: row.abnormal_key_serial ?? '',
        }
      : {}),
  });
  await applyRefundReport(db, reportOf(answer), now(), row.out_refund_no);
}

/** Asks WeChat about a refund still processing; one WeChat does not know goes back to be sent again. */
async function query({ db, pay, now }: RefundWorkerOptions, row: WechatRefundRow): Promise<void> {
  const answer = await pay.queryRefund(row.out_refund_no);
  if (answer) {
    await applyRefundReport(db, reportOf(answer), now(), row.out_refund_no);
    return;
  }
  // WeChat does not know it: the request never arrived. Send it again, same number.
  await db
    .update(wechat_refunds)
    .set({ status: 'pending', next_attempt_at: now(), updated_at: now() })
    .where(and(eq(wechat_refunds.id, row.id), eq(wechat_refunds.status, 'processing')));
}
