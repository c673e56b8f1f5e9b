/** Profit-share rule history and bonus credits granted by staff. Money is integer fen (docs/decisions.md D5). */
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { accounts, merchants } from './accounts';
import { venues } from './catalogue';
import { members } from './members';
import { ledger_transactions } from './ledger';

/**
 * Append-only history of `share_rules` (docs/decisions.md D17): one row per create, change or removal, never
 * updated. A rule's ratio was in force from its row's `created_at` until the next row of the same venue and
 * partner. `share_rules` holds what is in force now, which is what the split reads at payment.
 */
export const share_rule_changes = pgTable(
  'share_rule_changes',
  {
    id: id(),
    /** The `share_rules` row (kept after the rule is removed, so no foreign key). */
    rule_id: integer().notNull(),
    merchant_id: integer()
      .notNull()
      .references(() => merchants.id),
    venue_id: integer()
      .notNull()
      .references(() => venues.id),
    partner_account_id: integer()
      .notNull()
      .references(() => accounts.id),
    action: text({ enum: ['create', 'update', 'delete'] }).notNull(),
    /** The ratio in force from this change on; null once removed. */
    ratio_bp: integer(),
    previous_bp: integer(),
    account_id: integer().references(() => accounts.id),
    created_at: createdAt(),
  },
  (t) => [
    index('share_rule_changes_venue_idx').on(t.venue_id, t.created_at),
    index('share_rule_changes_merchant_idx').on(t.merchant_id, t.created_at),
  ],
);

/** A bonus credit (compensation) a merchant granted a member; the money moved in `ledger_transaction_id`. */
export const bonus_credits = pgTable(
  'bonus_credits',
  {
    id: id(),
    merchant_id: integer()
      .notNull()
      .references(() => merchants.id),
    member_id: integer()
      .notNull()
      .references(() => members.id),
    amount_fen: integer().notNull(),
    note: text().notNull(),
    account_id: integer()
      .notNull()
      .references(() => accounts.id),
    idempotency_key: text().notNull(),
    ledger_transaction_id: integer()
      .notNull()
      .references(() => ledger_transactions.id),
    created_at: createdAt(),
  },
  (t) => [
    check('bonus_credits_amount', sql`${t.amount_fen} > 0`),
    uniqueIndex('bonus_credits_idem_uq').on(t.merchant_id, t.idempotency_key),
    index('bonus_credits_member_idx').on(t.member_id, t.merchant_id),
  ],
);
