/**
 * What a wallet pay reads (docs/performance.md): the member's wallet locked through the device's merchant, then,
 * under that lock (a fresh snapshot), everything else in one query: the device and whether a session is active on
 * it, the price, the merchant, the venue's share rules (active partners only, docs/decisions.md D19), a first order
 * under the same Idempotency-Key and the ids of the wallets the split credits. All in one statement, which also
 * resolves the member's session (`sessionPayContext`), when the member has a wallet at that merchant; two more on
 * the first pay there (the wallet is opened). Nothing is cached, so a staff edit is seen by the next pay on every
 * instance.
 */
import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { prebuiltSql } from '../../db/prebuilt';
import { devices } from '../../db/schema';
import { type Wallet, memberWallet } from '../ledger';

/**
 * The member's wallet at the device's merchant, opened when the member has none there yet, and locked (FOR UPDATE):
 * the first pay's path, after `lockedPayContext` found no wallet. Undefined when the device does not exist.
 */
export async function openWalletForDevice(
  tx: Tx,
  memberId: number,
  deviceId: number,
): Promise<Wallet | undefined> {
  const [device] = await tx
    .select({ merchant_id: devices.merchant_id })
    .from(devices)
    .where(eq(devices.id, deviceId));
  if (!device) return undefined;
  return memberWallet(tx, memberId, device.merchant_id, { lock: true });
}

/** What the pay's context is read for. */
export interface ContextQuery {
  memberId: number;
  deviceId: number;
  priceId: number;
  key: string | null;
}

export interface PayContext {
  device_name: string;
  device_venue_id: number;
  merchant_id: number;
  device_status: string;
  heartbeat_ms: number | null;
  busy: boolean;
  price_id: number | null;
  price_venue_id: number | null;
  price_active: boolean | null;
  price_fen: number | null;
  minutes: number | null;
  merchant_status: string | null;
  fee_rate_bp: number | null;
  replay_id: number | null;
  platform_wallet: number | null;
  merchant_wallet: number | null;
  promotion_wallet: number | null;
  till_wallet: number | null;
  rules: { partner_account_id: number; ratio_bp: number; wallet_id: number | null }[];
}

const payContextRow = prebuiltSql<ContextQuery, PayContext>(
  (p) =>
    sql`select * from pay_context(${p.memberId}::int, ${p.deviceId}::int, ${p.priceId}::int, ${p.key}::text)`,
);

/**
 * The pay's context in one statement (run it after the wallet lock); undefined when the device does not exist. The
 * query is the PL/pgSQL function `pay_context` (server/db/migrations/0015_pay_context.sql, docs/decisions.md D24).
 */
export async function payContext(tx: Tx, q: ContextQuery): Promise<PayContext | undefined> {
  // The function pay_context (migration 0015) holds the query, so its plan is kept per connection; its call's text
  // is built once (server/db/prebuilt.ts).
  const [row] = await payContextRow(tx, q);
  if (!row) return undefined;
  // json arrives parsed from node-postgres and PGlite alike; a string only from a driver that does not parse it.
  if (typeof row.rules === 'string') row.rules = JSON.parse(row.rules) as PayContext['rules'];
  return row;
}

/** The pay's first row: the member, the locked wallet's columns (prefixed `w_`), then the context's. */
type SessionRow = { member_id: number } & (
  | (PayContext & {
      w_id: number;
      w_kind: Wallet['kind'];
      w_code: string | null;
      w_member_id: number | null;
      w_merchant_id: number | null;
      w_account_id: number | null;
      w_principal_fen: number;
      w_cash_principal_fen: number;
      w_bonus_fen: number;
      w_frozen_fen: number;
      w_created_at: string | Date;
    })
  | { w_id: null }
);

/** What the pay's first statement is asked: the session's token hash and the moment it must be live at. */
export interface SessionContextQuery extends Omit<ContextQuery, 'memberId'> {
  tokenHash: string;
  now: Date;
}

const sessionContextRow = prebuiltSql<Omit<SessionContextQuery, 'now'> & { now: string }, SessionRow>(
  (p) => sql`
    select s.member_id, l.*
    from member_sessions s
    left join lateral pay_context_locked(s.member_id, ${p.deviceId}::int, ${p.priceId}::int, ${p.key}::text) l on true
    where s.token_hash = ${p.tokenHash}::text and s.expires_at > ${p.now}::timestamptz and s.revoked_at is null`,
);

/**
 * The pay's first statement (docs/decisions.md D31): the member's session resolved as `requireMember` resolves it
 * (the token's hash, unexpired, not revoked; the hash is unique, so one row at most) and, for that member, the PL/pgSQL
 * function `pay_context_locked` (server/db/migrations/0017_pay_context_locked.sql, D30): the member's wallet at the
 * device's merchant locked, the pay's context read under that lock with a fresh snapshot (the function is VOLATILE).
 * Null when the session is not live. Without `locked` when the member has no wallet there yet or the device does not
 * exist: then `openWalletForDevice` and `payContext` do the same, opening the wallet.
 */
export async function sessionPayContext(
  tx: Tx,
  q: SessionContextQuery,
): Promise<{ memberId: number; locked?: { wallet: Wallet; ctx: PayContext } } | null> {
  const [row] = await sessionContextRow(tx, { ...q, now: q.now.toISOString() });
  if (!row) return null;
  if (row.w_id === null) return { memberId: row.member_id };
  const {
    member_id,
    w_id,
    w_kind,
    w_code,
    w_member_id,
    w_merchant_id,
    w_account_id,
    w_principal_fen,
    w_cash_principal_fen,
    w_bonus_fen,
    w_frozen_fen,
    w_created_at,
    ...ctx
  } = row;
  if (typeof ctx.rules === 'string') ctx.rules = JSON.parse(ctx.rules) as PayContext['rules'];
  const wallet: Wallet = {
    id: w_id,
    kind: w_kind,
    code: w_code,
    member_id: w_member_id,
    merchant_id: w_merchant_id,
    account_id: w_account_id,
    principal_fen: Number(w_principal_fen),
    cash_principal_fen: Number(w_cash_principal_fen),
    bonus_fen: Number(w_bonus_fen),
    frozen_fen: Number(w_frozen_fen),
    created_at: new Date(w_created_at),
  };
  return { memberId: member_id, locked: { wallet, ctx } };
}
