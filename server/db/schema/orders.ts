/** Orders and the device sessions they start. Money is integer fen (docs/decisions.md D5). */
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';
import { accounts, merchants } from './accounts';
import { devices, packages, service_prices, venues } from './catalogue';
import { members } from './members';

export const orders = pgTable(
  'orders',
  {
    id: id(),
    order_no: text().notNull().unique(),
    /** service: a free start by staff (a reason in `note`, audited); it moves no money and is not revenue. */
    kind: text({ enum: ['recharge', 'consume', 'service'] }).notNull(),
    /** free: a service start (no money). */
    method: text({ enum: ['wallet', 'wechat', 'cash', 'free'] }).notNull(),
    /**
     * pending: waiting for WeChat payment; paid: money taken, device not yet acknowledged;
     * started: device running; completed: session ended normally; refunded: money returned (fully or unused part);
     * closed: never paid; failed: could not be completed (see failure_reason).
     */
    status: text({
      enum: ['pending', 'paid', 'started', 'completed', 'refunded', 'closed', 'failed'],
    }).notNull(),
    member_id: integer().references(() => members.id),
    merchant_id: integer()
      .notNull()
      .references(() => merchants.id),
    venue_id: integer().references(() => venues.id),
    device_id: integer().references(() => devices.id),
    price_id: integer().references(() => service_prices.id),
    package_id: integer().references(() => packages.id),
    /** Staff account that took cash (method 'cash') or started the device (kind 'service'). */
    operator_account_id: integer().references(() => accounts.id),
    /** What the staff wrote: the note of a cash recharge, the reason of a service start. */
    note: text(),
    amount_fen: integer().notNull(),
    /** Recharges: the bonus credited on top. Consumes: the part of amount_fen taken from bonus. */
    bonus_fen: integer().notNull().default(0),
    /**
     * Consumes: the part of amount_fen paid with cash: taken from the member's cash principal (a wallet pay), or the
     * whole amount of a cash order (docs/decisions.md D18). Recharges: 0 (method 'cash' says it was cash).
     */
    cash_fen: integer().notNull().default(0),
    refunded_fen: integer().notNull().default(0),
    minutes: integer(),
    idempotency_key: text(),
    failure_reason: text(),
    wechat_prepay_id: text(),
    wechat_transaction_id: text(),
    /** No outbound WeChat Pay order query for this order before this time (one in flight, then an interval). */
    wechat_queried_at: ts(),
    paid_at: ts(),
    created_at: createdAt(),
  },
  (t) => [
    check('orders_amount', sql`${t.amount_fen} > 0 or (${t.kind} = 'service' and ${t.amount_fen} = 0)`),
    check('orders_refund', sql`${t.refunded_fen} between 0 and ${t.amount_fen}`),
    check('orders_cash', sql`${t.cash_fen} between 0 and ${t.amount_fen}`),
    uniqueIndex('orders_member_idem_uq').on(t.member_id, t.idempotency_key),
    uniqueIndex('orders_operator_idem_uq').on(t.operator_account_id, t.idempotency_key),
    index('orders_member_idx').on(t.member_id, t.created_at),
    index('orders_merchant_idx').on(t.merchant_id, t.created_at),
    // Reports: a merchant's orders by the moment they were paid (the range filter of every report).
    index('orders_merchant_paid_idx').on(t.merchant_id, sql`coalesce(${t.paid_at}, ${t.created_at})`),
  ],
);

export const device_sessions = pgTable(
  'device_sessions',
  {
    id: id(),
    order_id: integer()
      .notNull()
      .unique()
      .references(() => orders.id),
    device_id: integer()
      .notNull()
      .references(() => devices.id),
    member_id: integer().references(() => members.id),
    minutes: integer().notNull(),
    /** starting: command sent, waiting for ack; running; ended: ran to the end; stopped: ended early; failed. */
    status: text({ enum: ['starting', 'running', 'ended', 'stopped', 'failed'] }).notNull(),
    ack_deadline: ts(),
    started_at: ts(),
    ends_at: ts(),
    ended_at: ts(),
    refund_fen: integer().notNull().default(0),
    created_at: createdAt(),
    // ---- gateway bookkeeping
    /** When the start command went to the gateway; null = not sent yet (the scheduler sends it after a crash). */
    command_sent_at: ts(),
    /** Why the session failed (no acknowledgement, refused), for support and the refund memo. */
    failure_reason: text(),
  },
  (t) => [
    index('device_sessions_device_idx').on(t.device_id, t.status),
    index('device_sessions_due_idx').on(t.status, t.ends_at),
    // Reports join the sessions of a range's orders by this window (server/routes/reports/reports.sql.ts).
    index('device_sessions_created_idx').on(t.created_at),
    uniqueIndex('device_sessions_one_active_uq')
      .on(t.device_id)
      .where(sql`${t.status} in ('starting', 'running')`),
  ],
);
