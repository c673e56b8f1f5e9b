/** Withdrawals with their events, and feedback. Money is integer fen (docs/decisions.md D5). */
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';
import { accounts, merchants } from './accounts';
import { devices } from './catalogue';
import { wallets } from './ledger';
import { members } from './members';

export const withdrawals = pgTable(
  'withdrawals',
  {
    id: id(),
    merchant_id: integer().references(() => merchants.id),
    account_id: integer()
      .notNull()
      .references(() => accounts.id),
    wallet_id: integer()
      .notNull()
      .references(() => wallets.id),
    amount_fen: integer().notNull(),
    status: text({ enum: ['requested', 'approved', 'paid', 'rejected'] }).notNull(),
    /** Why the admin rejected it. */
    reason: text(),
    /** The transfer reference the admin recorded when marking it paid. */
    reference: text(),
    /** The requester's Idempotency-Key: a repeat with the same key answers the first request. */
    idempotency_key: text(),
    created_at: createdAt(),
    updated_at: createdAt(),
  },
  (t) => [
    check('withdrawals_amount', sql`${t.amount_fen} > 0`),
    index('withdrawals_merchant_idx').on(t.merchant_id),
    index('withdrawals_account_idx').on(t.account_id),
    uniqueIndex('withdrawals_idempotency_uq')
      .on(t.account_id, t.idempotency_key)
      .where(sql`${t.idempotency_key} is not null`),
  ],
);

/** Every state change of a withdrawal (requested included): who, when, and the reason or reference. */
export const withdrawal_events = pgTable(
  'withdrawal_events',
  {
    id: id(),
    withdrawal_id: integer()
      .notNull()
      .references(() => withdrawals.id),
    status: text().notNull(),
    actor_account_id: integer().references(() => accounts.id),
    note: text(),
    created_at: createdAt(),
  },
  (t) => [index('withdrawal_events_withdrawal_idx').on(t.withdrawal_id)],
);

export const feedback = pgTable(
  'feedback',
  {
    id: id(),
    member_id: integer()
      .notNull()
      .references(() => members.id),
    merchant_id: integer().references(() => merchants.id),
    device_id: integer().references(() => devices.id),
    category: text({ enum: ['device', 'payment', 'refund', 'suggestion', 'other'] }).notNull(),
    content: text().notNull(),
    reply: text(),
    replied_by: integer().references(() => accounts.id),
    replied_at: ts(),
    created_at: createdAt(),
  },
  (t) => [index('feedback_member_idx').on(t.member_id), index('feedback_merchant_idx').on(t.merchant_id)],
);
