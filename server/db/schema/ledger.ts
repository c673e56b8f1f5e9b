/** The ledger: wallets, balanced transactions and their entries. Money is integer fen (docs/decisions.md D5). */
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  pgTable,
  text,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { accounts, merchants } from './accounts';
import { members } from './members';
import { orders } from './orders';
import { withdrawals } from './withdrawals';

/**
 * Ledger accounts ("wallets"). Kinds:
 * - member: a member's wallet at one merchant: principal paid online, principal paid in cash, and bonus apart
 *   (docs/decisions.md D18: a member's principal keeps its source);
 * - merchant: the merchant's settlement wallet (online income after fee and shares, less the fee and shares owed on
 *   cash principal spent); its principal may run negative, a debt to the platform (docs/decisions.md D18);
 * - partner: a partner's share income;
 * - platform: the platform's fee income;
 * - external: money outside the system (WeChat Pay clearing, cash taken, cash kept as merchants' takings, promotion,
 *   payouts); may go negative.
 * `frozen_fen` holds amounts requested for withdrawal.
 */
export const wallets = pgTable(
  'wallets',
  {
    id: id(),
    kind: text({ enum: ['member', 'merchant', 'partner', 'platform', 'external'] }).notNull(),
    /** For external wallets: 'wechat', 'cash', 'till', 'promotion', 'payout'. */
    code: text(),
    member_id: integer().references(() => members.id),
    merchant_id: integer().references(() => merchants.id),
    account_id: integer().references(() => accounts.id),
    principal_fen: bigint({ mode: 'number' }).notNull().default(0),
    /** Member wallets only: principal paid in cash at the merchant's counter (docs/decisions.md D18). */
    cash_principal_fen: bigint({ mode: 'number' }).notNull().default(0),
    bonus_fen: bigint({ mode: 'number' }).notNull().default(0),
    frozen_fen: bigint({ mode: 'number' }).notNull().default(0),
    created_at: createdAt(),
  },
  (t) => [
    // Only external wallets go negative, and a merchant's settlement principal (a debt, docs/decisions.md D18).
    check(
      'wallets_not_negative',
      sql`${t.kind} = 'external' or ((${t.principal_fen} >= 0 or ${t.kind} = 'merchant') and ${t.cash_principal_fen} >= 0 and ${t.bonus_fen} >= 0 and ${t.frozen_fen} >= 0)`,
    ),
    check('wallets_cash_member_only', sql`${t.kind} = 'member' or ${t.cash_principal_fen} = 0`),
    uniqueIndex('wallets_member_merchant_uq')
      .on(t.member_id, t.merchant_id)
      .where(sql`${t.kind} = 'member'`),
    uniqueIndex('wallets_merchant_uq')
      .on(t.merchant_id)
      .where(sql`${t.kind} = 'merchant'`),
    uniqueIndex('wallets_partner_uq')
      .on(t.account_id)
      .where(sql`${t.kind} = 'partner'`),
    uniqueIndex('wallets_code_uq')
      .on(t.kind, t.code)
      .where(sql`${t.kind} in ('platform', 'external')`),
  ],
);

/** One balanced movement of money: its entries sum to zero. */
export const ledger_transactions = pgTable(
  'ledger_transactions',
  {
    id: id(),
    kind: text().notNull(),
    order_id: integer().references((): AnyPgColumn => orders.id),
    withdrawal_id: integer().references((): AnyPgColumn => withdrawals.id),
    memo: text().notNull().default(''),
    created_at: createdAt(),
  },
  (t) => [index('ledger_transactions_order_idx').on(t.order_id)],
);

export const ledger_entries = pgTable(
  'ledger_entries',
  {
    id: id(),
    transaction_id: integer()
      .notNull()
      .references(() => ledger_transactions.id),
    wallet_id: integer()
      .notNull()
      .references(() => wallets.id),
    bucket: text({ enum: ['principal', 'cash_principal', 'bonus', 'frozen'] }).notNull(),
    amount_fen: bigint({ mode: 'number' }).notNull(),
    created_at: createdAt(),
  },
  (t) => [
    check('ledger_entries_nonzero', sql`${t.amount_fen} <> 0`),
    index('ledger_entries_wallet_idx').on(t.wallet_id),
    index('ledger_entries_txn_idx').on(t.transaction_id),
  ],
);
