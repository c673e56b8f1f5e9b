/** Staff accounts, merchants, sign-in tokens and attempts, the permission matrix, the audit log. Money is integer fen (docs/decisions.md D5). */
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';

export const merchants = pgTable(
  'merchants',
  {
    id: id(),
    name: text().notNull(),
    contact_name: text().notNull().default(''),
    contact_phone: text().notNull().default(''),
    owner_account_id: integer().references((): AnyPgColumn => accounts.id),
    /** Platform fee on online payments, in basis points (600 = 6%). */
    fee_rate_bp: integer().notNull().default(600),
    status: text({ enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    created_at: createdAt(),
  },
  (t) => [check('merchants_fee_rate', sql`${t.fee_rate_bp} between 0 and 10000`)],
);

export const accounts = pgTable(
  'accounts',
  {
    id: id(),
    username: text().notNull().unique(),
    name: text().notNull(),
    password_hash: text().notNull(),
    role: text({ enum: ['admin', 'merchant', 'partner', 'employee'] }).notNull(),
    level: integer().notNull(),
    merchant_id: integer().references((): AnyPgColumn => merchants.id),
    phone: text().notNull().default(''),
    status: text({ enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    created_at: createdAt(),
  },
  (t) => [
    check('accounts_level', sql`${t.level} between 1 and 4`),
    check('accounts_merchant_scope', sql`${t.level} = 1 or ${t.merchant_id} is not null`),
    index('accounts_merchant_idx').on(t.merchant_id),
  ],
);

/** Staff bearer tokens: only the SHA-256 of the random token is stored. */
export const auth_tokens = pgTable(
  'auth_tokens',
  {
    id: id(),
    account_id: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    token_hash: text().notNull().unique(),
    expires_at: ts().notNull(),
    revoked_at: ts(),
    created_at: createdAt(),
  },
  (t) => [index('auth_tokens_account_idx').on(t.account_id)],
);

/** Failed sign-in counter, kept in the DB so that every API instance sees the same count. */
export const login_attempts = pgTable('login_attempts', {
  key: text().primaryKey(),
  failures: integer().notNull().default(0),
  locked_until: ts(),
  updated_at: createdAt(),
});

/** Level x feature matrix edited at /admin/permissions. */
export const permissions = pgTable(
  'permissions',
  {
    level: integer().notNull(),
    feature: text().notNull(),
    allowed: boolean().notNull(),
  },
  (t) => [primaryKey({ columns: [t.level, t.feature] })],
);

export const audit_log = pgTable(
  'audit_log',
  {
    id: id(),
    account_id: integer().references(() => accounts.id),
    merchant_id: integer().references(() => merchants.id),
    action: text().notNull(),
    entity: text().notNull(),
    entity_id: text(),
    details: jsonb().$type<Record<string, unknown>>(),
    created_at: createdAt(),
  },
  (t) => [index('audit_log_merchant_idx').on(t.merchant_id, t.created_at)],
);
