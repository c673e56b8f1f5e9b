/** Catalogue: device models (products), venues, service prices, devices, recharge packages, profit-share rules. Money is integer fen (docs/decisions.md D5). */
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';
import { accounts, merchants } from './accounts';

/** Device models, managed by the platform admin. */
export const products = pgTable('products', {
  id: id(),
  name: text().notNull(),
  category: text({ enum: ['charger', 'washer', 'massage', 'other'] })
    .notNull()
    .default('other'),
  description: text().notNull().default(''),
  /** A retired model stays on the devices that use it but is offered for no new device. */
  status: text({ enum: ['active', 'retired'] })
    .notNull()
    .default('active'),
  created_at: createdAt(),
});

export const venues = pgTable(
  'venues',
  {
    id: id(),
    merchant_id: integer()
      .notNull()
      .references(() => merchants.id),
    name: text().notNull(),
    address: text().notNull().default(''),
    created_at: createdAt(),
  },
  (t) => [index('venues_merchant_idx').on(t.merchant_id)],
);

export const service_prices = pgTable(
  'service_prices',
  {
    id: id(),
    venue_id: integer()
      .notNull()
      .references(() => venues.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    minutes: integer().notNull(),
    price_fen: integer().notNull(),
    active: boolean().notNull().default(true),
    sort: integer().notNull().default(0),
    created_at: createdAt(),
  },
  (t) => [
    check('service_prices_minutes', sql`${t.minutes} > 0`),
    check('service_prices_price', sql`${t.price_fen} > 0`),
    index('service_prices_venue_idx').on(t.venue_id),
  ],
);

export const devices = pgTable(
  'devices',
  {
    id: id(),
    merchant_id: integer()
      .notNull()
      .references(() => merchants.id),
    venue_id: integer()
      .notNull()
      .references(() => venues.id),
    product_id: integer()
      .notNull()
      .references(() => products.id),
    name: text().notNull(),
    serial: text().notNull().unique(),
    /** What the operator set or the gateway reported; `online` is derived from last_heartbeat_at (< 90 s). */
    status: text({ enum: ['idle', 'running', 'offline', 'fault', 'disabled'] })
      .notNull()
      .default('idle'),
    last_heartbeat_at: ts(),
    /** SHA-256 (hex) of the device's MQTT secret; the secret itself is shown once and never stored (docs/device-protocol.md). */
    secret_hash: text(),
    secret_rotated_at: ts(),
    created_at: createdAt(),
  },
  (t) => [
    index('devices_merchant_idx').on(t.merchant_id),
    index('devices_venue_idx').on(t.venue_id),
    // The device list's order within a merchant (venue, then id): a page is read from the index, not sorted.
    index('devices_merchant_venue_id_idx').on(t.merchant_id, t.venue_id, t.id),
  ],
);

/** Recharge packages: pay `pay_fen`, get `bonus_fen` on top. */
export const packages = pgTable(
  'packages',
  {
    id: id(),
    merchant_id: integer()
      .notNull()
      .references(() => merchants.id),
    name: text().notNull(),
    pay_fen: integer().notNull(),
    bonus_fen: integer().notNull().default(0),
    active: boolean().notNull().default(true),
    sort: integer().notNull().default(0),
    created_at: createdAt(),
  },
  (t) => [
    check('packages_pay', sql`${t.pay_fen} > 0`),
    check('packages_bonus', sql`${t.bonus_fen} >= 0`),
    index('packages_merchant_idx').on(t.merchant_id),
  ],
);

/** Profit share of a venue's online income for a partner account (level 3). */
export const share_rules = pgTable(
  'share_rules',
  {
    id: id(),
    merchant_id: integer()
      .notNull()
      .references(() => merchants.id),
    venue_id: integer()
      .notNull()
      .references(() => venues.id),
    partner_account_id: integer()
      .notNull()
      .references(() => accounts.id),
    /** Basis points of the merchant's net income (2000 = 20%). */
    ratio_bp: integer().notNull(),
    created_at: createdAt(),
  },
  (t) => [
    check('share_rules_ratio', sql`${t.ratio_bp} between 1 and 10000`),
    uniqueIndex('share_rules_venue_partner_uq').on(t.venue_id, t.partner_account_id),
    index('share_rules_merchant_idx').on(t.merchant_id),
  ],
);
