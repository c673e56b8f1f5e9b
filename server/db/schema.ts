/**
 * The whole data model (docs/decisions.md D5). Money is integer fen; every balance column is changed only by the
 * ledger service, in the same transaction as the ledger entries that explain it. Property names are snake_case so
 * rows map to the API's snake_case JSON without renaming.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';

const id = () => integer().primaryKey().generatedAlwaysAsIdentity();
const ts = () => timestamp({ withTimezone: true, mode: 'date' });
const createdAt = () => ts().notNull().defaultNow();

// ---------------------------------------------------------------- staff, merchants, permissions

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

// ---------------------------------------------------------------- catalogue: products, venues, prices, devices

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
    created_at: createdAt(),
  },
  (t) => [index('devices_merchant_idx').on(t.merchant_id), index('devices_venue_idx').on(t.venue_id)],
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

// ---------------------------------------------------------------- members (end users, WeChat identities)

export const members = pgTable('members', {
  id: id(),
  openid: text().notNull().unique(),
  unionid: text(),
  nickname: text().notNull().default(''),
  avatar_url: text().notNull().default(''),
  created_at: createdAt(),
});

/** Member sessions behind the HttpOnly cookie: only the hash of the random token is stored. */
export const member_sessions = pgTable(
  'member_sessions',
  {
    id: id(),
    member_id: integer()
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    token_hash: text().notNull().unique(),
    expires_at: ts().notNull(),
    revoked_at: ts(),
    created_at: createdAt(),
  },
  (t) => [index('member_sessions_member_idx').on(t.member_id)],
);

/** OAuth `state`: single use, short-lived, bound to the return path (and to the member once the callback ran). */
export const oauth_states = pgTable('oauth_states', {
  state: text().primaryKey(),
  return_path: text().notNull(),
  expires_at: ts().notNull(),
  used_at: ts(),
  code: text(),
  /** Set by the first callback; a duplicate callback (phones call twice) opens another session for this member. */
  member_id: integer().references(() => members.id),
  /** SHA-256 of the random value put in the starting browser's `wx_oauth` cookie: the callback must come from it. */
  browser_hash: text(),
  /** The session the first callback opened; a duplicate is honoured only while it is still signed in. */
  session_id: integer(),
  created_at: createdAt(),
});

// ---------------------------------------------------------------- ledger

/**
 * Ledger accounts ("wallets"). Kinds:
 * - member: a member's wallet at one merchant (principal and bonus apart);
 * - merchant: the merchant's settlement wallet (online income after fee and shares);
 * - partner: a partner's share income;
 * - platform: the platform's fee income;
 * - external: money outside the system (WeChat Pay clearing, cash drawer, payouts); may go negative.
 * `frozen_fen` holds amounts requested for withdrawal.
 */
export const wallets = pgTable(
  'wallets',
  {
    id: id(),
    kind: text({ enum: ['member', 'merchant', 'partner', 'platform', 'external'] }).notNull(),
    /** For external wallets: 'wechat', 'cash', 'payout'. */
    code: text(),
    member_id: integer().references(() => members.id),
    merchant_id: integer().references(() => merchants.id),
    account_id: integer().references(() => accounts.id),
    principal_fen: bigint({ mode: 'number' }).notNull().default(0),
    bonus_fen: bigint({ mode: 'number' }).notNull().default(0),
    frozen_fen: bigint({ mode: 'number' }).notNull().default(0),
    created_at: createdAt(),
  },
  (t) => [
    check(
      'wallets_not_negative',
      sql`${t.kind} = 'external' or (${t.principal_fen} >= 0 and ${t.bonus_fen} >= 0 and ${t.frozen_fen} >= 0)`,
    ),
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
    bucket: text({ enum: ['principal', 'bonus', 'frozen'] }).notNull(),
    amount_fen: bigint({ mode: 'number' }).notNull(),
    created_at: createdAt(),
  },
  (t) => [
    check('ledger_entries_nonzero', sql`${t.amount_fen} <> 0`),
    index('ledger_entries_wallet_idx').on(t.wallet_id),
    index('ledger_entries_txn_idx').on(t.transaction_id),
  ],
);

// ---------------------------------------------------------------- orders, device sessions

export const orders = pgTable(
  'orders',
  {
    id: id(),
    order_no: text().notNull().unique(),
    kind: text({ enum: ['recharge', 'consume'] }).notNull(),
    method: text({ enum: ['wallet', 'wechat', 'cash'] }).notNull(),
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
    /** Staff account that took cash (method 'cash'). */
    operator_account_id: integer().references(() => accounts.id),
    amount_fen: integer().notNull(),
    /** Recharges: the bonus credited on top. Consumes: the part of amount_fen taken from bonus. */
    bonus_fen: integer().notNull().default(0),
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
    check('orders_amount', sql`${t.amount_fen} > 0`),
    check('orders_refund', sql`${t.refunded_fen} between 0 and ${t.amount_fen}`),
    uniqueIndex('orders_member_idem_uq').on(t.member_id, t.idempotency_key),
    index('orders_member_idx').on(t.member_id, t.created_at),
    index('orders_merchant_idx').on(t.merchant_id, t.created_at),
    index('orders_status_idx').on(t.status),
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
    uniqueIndex('device_sessions_one_active_uq')
      .on(t.device_id)
      .where(sql`${t.status} in ('starting', 'running')`),
  ],
);

// ---------------------------------------------------------------- withdrawals, feedback

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
    reason: text(),
    created_at: createdAt(),
    updated_at: createdAt(),
  },
  (t) => [
    check('withdrawals_amount', sql`${t.amount_fen} > 0`),
    index('withdrawals_merchant_idx').on(t.merchant_id),
  ],
);

export const withdrawal_events = pgTable('withdrawal_events', {
  id: id(),
  withdrawal_id: integer()
    .notNull()
    .references(() => withdrawals.id),
  status: text().notNull(),
  actor_account_id: integer().references(() => accounts.id),
  note: text(),
  created_at: createdAt(),
});

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

// ---------------------------------------------------------------- WeChat Pay bookkeeping

/** Every notification we accepted, deduplicated by out_trade_no (and WeChat's notification id for the log). */
export const pay_notifications = pgTable('pay_notifications', {
  id: id(),
  notification_id: text().notNull(),
  out_trade_no: text().notNull().unique(),
  transaction_id: text(),
  received_at: createdAt(),
});

// ---------------------------------------------------------------- WeChat sandboxes (sandbox mode only)
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
