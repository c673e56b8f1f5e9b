/** WeChat sandboxes (sandbox mode only): keys, OAuth codes, pay transactions, refunds, notifications. Money is integer fen (docs/decisions.md D5). */
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';

// The sandboxes keep their state here, not in memory, so that several API instances (and a restart) see the same
// codes, transactions and pending notifications. Production (live WeChat) never writes these tables.

/** Generated sandbox credentials (RSA key pairs, serials, APIv3 key), shared by every instance on this DB. */
export const sandbox_keys = pgTable('sandbox_keys', {
  name: text().primaryKey(),
  value: jsonb().$type<Record<string, string>>().notNull(),
  created_at: createdAt(),
});

/** OAuth codes issued by the sandbox authorize page, and the web access_token each one was exchanged for. */
export const sandbox_oauth_codes = pgTable('sandbox_oauth_codes', {
  code: text().primaryKey(),
  appid: text().notNull(),
  openid: text().notNull(),
  nickname: text().notNull().default(''),
  scope: text().notNull(),
  expires_at: ts().notNull(),
  used_at: ts(),
  access_token: text().unique(),
  token_expires_at: ts(),
  refresh_token: text().unique(),
  refresh_expires_at: ts(),
  /** A 快照页 virtual account: the exchange answers `is_snapshotuser: 1`. */
  snapshot: boolean().notNull().default(false),
  created_at: createdAt(),
});

/** Pay v3 transactions created by prepay in the sandbox. */
export const sandbox_pay_transactions = pgTable(
  'sandbox_pay_transactions',
  {
    id: id(),
    mchid: text().notNull(),
    appid: text().notNull(),
    out_trade_no: text().notNull(),
    prepay_id: text().notNull().unique(),
    description: text().notNull(),
    amount_total: integer().notNull(),
    openid: text().notNull(),
    notify_url: text().notNull(),
    attach: text(),
    time_expire: text(),
    /** Fingerprint of the prepay parameters: a different one with the same out_trade_no is OUT_TRADE_NO_USED. */
    params_hash: text().notNull(),
    trade_state: text({ enum: ['NOTPAY', 'SUCCESS', 'REFUND', 'CLOSED', 'PAYERROR'] }).notNull(),
    transaction_id: text().unique(),
    success_time: ts(),
    refunded_total: integer().notNull().default(0),
    /**
     * How refunds of this transaction end (test switch, server/sandbox/pay-refund.sandbox.ts): null = SUCCESS at
     * once; `delay:<ms>`, `silent`, `closed`, `abnormal`, `error` (requests answered 500 SYSTEM_ERROR).
     */
    refund_outcome: text(),
    created_at: createdAt(),
  },
  (t) => [uniqueIndex('sandbox_pay_tx_out_trade_no_uq').on(t.mchid, t.out_trade_no)],
);

/** Pay v3 refunds in the sandbox. */
export const sandbox_pay_refunds = pgTable(
  'sandbox_pay_refunds',
  {
    id: id(),
    mchid: text().notNull(),
    out_refund_no: text().notNull(),
    refund_id: text().notNull().unique(),
    out_trade_no: text().notNull(),
    transaction_id: text().notNull(),
    amount_refund: integer().notNull(),
    amount_total: integer().notNull(),
    reason: text(),
    status: text({ enum: ['PROCESSING', 'SUCCESS', 'CLOSED', 'ABNORMAL'] }).notNull(),
    /** A delayed refund: PROCESSING until this time, then `final_status`. */
    settles_at: ts(),
    final_status: text({ enum: ['SUCCESS', 'CLOSED', 'ABNORMAL'] }),
    /** An abnormal refund redirected by apply-abnormal-refund: where it went instead. */
    abnormal_type: text({ enum: ['USER_BANK_CARD', 'MERCHANT_BANK_CARD'] }),
    /** `user_received_account` of a redirected refund (bank and the card's last digits, or the merchant). */
    received_account: text(),
    success_time: ts(),
    created_at: createdAt(),
  },
  (t) => [uniqueIndex('sandbox_pay_refunds_no_uq').on(t.mchid, t.out_refund_no)],
);

/** Outgoing notifications (payment and refund) with their delivery attempts, retried on WeChat's schedule. */
export const sandbox_pay_notifications = pgTable(
  'sandbox_pay_notifications',
  {
    id: id(),
    /** The envelope id (a UUID); a duplicate delivery reuses it, as WeChat does. */
    notification_id: text().notNull(),
    out_trade_no: text().notNull(),
    notify_url: text().notNull(),
    /** The exact JSON body sent (signed afresh on every attempt). */
    body: text().notNull(),
    /** 'normal', or 'probe' (a SIGNTEST signature, never retried). */
    kind: text({ enum: ['normal', 'probe'] })
      .notNull()
      .default('normal'),
    attempts: integer().notNull().default(0),
    next_attempt_at: ts().notNull(),
    delivered_at: ts(),
    given_up_at: ts(),
    last_status: integer(),
    last_error: text(),
    created_at: createdAt(),
  },
  (t) => [index('sandbox_pay_notifications_due_idx').on(t.next_attempt_at)],
);
