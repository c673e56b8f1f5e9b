/** WeChat Pay bookkeeping: accepted notifications and the refund outbox. Money is integer fen (docs/decisions.md D5). */
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';
import { orders } from './orders';

/** Every notification we accepted, deduplicated by out_trade_no (and WeChat's notification id for the log). */
export const pay_notifications = pgTable('pay_notifications', {
  id: id(),
  notification_id: text().notNull(),
  out_trade_no: text().notNull().unique(),
  transaction_id: text(),
  received_at: createdAt(),
});

/**
 * The refund outbox (docs/money.md "WeChat refunds"): one row per refund of a WeChat-paid order, written in the
 * transaction that decides the refund; a worker sends it to WeChat after commit. The ledger books it only when
 * WeChat reports SUCCESS.
 *
 * pending: decided, not yet accepted by WeChat (sent or about to be; retried with backoff);
 * processing: WeChat accepted it, the result is awaited (notification or query);
 * succeeded: the money is back on the member's WeChat, and booked;
 * closed / abnormal: WeChat closed it or could not pay it out; failed: WeChat refused the request (these three are
 * shown to staff, who may retry; an abnormal one is instead redirected by staff to a bank card: abnormal_pending,
 * sent as WeChat's "apply abnormal refund", then processing again);
 * mismatch: WeChat's answers about it did not match it (amount, order, number) three times: never settled,
 * shown to staff, no longer queried on its own.
 */
export const wechat_refunds = pgTable(
  'wechat_refunds',
  {
    id: id(),
    order_id: integer()
      .notNull()
      .references(() => orders.id),
    /** Sent to WeChat; the same number on every resend. A retry after closed/abnormal takes a new one. */
    out_refund_no: text().notNull().unique(),
    amount_fen: integer().notNull(),
    reason: text().notNull(),
    status: text({
      enum: [
        'pending',
        'processing',
        'succeeded',
        'closed',
        'abnormal',
        'abnormal_pending',
        'failed',
        'mismatch',
      ],
    }).notNull(),
    /** Requests sent for this row (reset by a staff retry). */
    attempts: integer().notNull().default(0),
    /** When the worker next looks at the row (send, or query a processing one); also the claim's lease. */
    next_attempt_at: ts().notNull().defaultNow(),
    wechat_refund_id: text(),
    /** The last error or WeChat's word on a refund that did not succeed, for staff. */
    last_error: text(),
    sent_at: ts(),
    /**
     * When a refund request of this row (under any of its numbers) last went to WeChat: requests for one order
     * are spaced at least a minute apart (WeChat's rule). Never reset.
     */
    last_request_at: ts(),
    /** WeChat answers about this refund that did not match it; the third makes it `mismatch`. */
    mismatches: integer().notNull().default(0),
    /**
     * Staff's redirection of an abnormal refund (WeChat's apply-abnormal-refund): USER_BANK_CARD (the member's
     * debit card) or MERCHANT_BANK_CARD (back to the merchant's bank account; booked to the member's wallet).
     */
    abnormal_type: text({ enum: ['USER_BANK_CARD', 'MERCHANT_BANK_CARD'] }),
    /** The card's bank (WeChat's bank code), for USER_BANK_CARD. */
    abnormal_bank_type: text(),
    /** Card number and holder's name, encrypted with WeChat Pay's public key (only WeChat can read them). */
    abnormal_bank_account: text(),
    abnormal_real_name: text(),
    /** The serial (or public key id) of the WeChat Pay key they were encrypted with: sent as Wechatpay-Serial. */
    abnormal_key_serial: text(),
    succeeded_at: ts(),
    created_at: createdAt(),
    updated_at: createdAt(),
  },
  (t) => [
    check('wechat_refunds_amount', sql`${t.amount_fen} > 0`),
    index('wechat_refunds_order_idx').on(t.order_id),
    index('wechat_refunds_due_idx')
      .on(t.next_attempt_at)
      .where(sql`${t.status} in ('pending', 'processing', 'abnormal_pending')`),
  ],
);
