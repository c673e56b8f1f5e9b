/**
 * A wallet pay (`POST /backend/user/pay`, method `wallet`) in four statements between BEGIN and COMMIT included, three
 * round trips on PostgreSQL (docs/performance.md): lock the member's wallet and read the context under the lock (one
 * statement), then insert the paid order, its `starting` session and the ledger movement (its shared wallets locked
 * last, in id order) in one more, sent with the COMMIT (docs/decisions.md D32).
 * The rules are those of docs/money.md: replay under the same key, the device's busy check, the balance decides.
 */
import { sql } from 'drizzle-orm';
import { lastStatementCommits } from '../../db/commit-with-last';
import type { PayRequest } from '../../../src/domain/api';
import type { Tx } from '../../db/client';
import { prebuiltSql } from '../../db/prebuilt';
import { HttpError } from '../../lib/errors';
import { availabilityOf, startingSession } from '../devices/sessions';
import {
  type Entry,
  type MovementArrays,
  type Wallet,
  externalWallet,
  merchantWallet,
  movementAfter,
  movementArrays,
  partnerWallet,
  platformWallet,
  spendable,
} from '../ledger';
import { findByKey } from './idempotency';
import { type Order, newOrderNo } from './order';
import { deviceRefusal } from './pay-refusals';
import { takeFromWallet } from './settle';
import { computeSplit, splitEntries } from './split';
import { memberSessionRequired } from '../../member/member-sessions';
import { type PayContext, openWalletForDevice, payContext, sessionPayContext } from './wallet-context';

export type WalletPayResult =
  | { replayOf: Order }
  | {
      order: { order_no: string; status: 'paid'; amount_fen: number };
      sessionId: number;
      device: { id: number; name: string };
      minutes: number;
    };

/** The refusals checked before any money moves, in the order the API has always answered them. */
function validate(ctx: PayContext, req: PayRequest): { price_fen: number; minutes: number } {
  if (ctx.device_venue_id !== req.venue_id) {
    throw new HttpError(400, 'VENUE_MISMATCH', '场地与设备不符，请重新扫描设备上的二维码', {
      venue_id: req.venue_id,
      device_venue_id: ctx.device_venue_id,
    });
  }
  if (ctx.price_id !== null && ctx.price_venue_id !== ctx.device_venue_id)
    throw new HttpError(400, 'PRICE_OTHER_VENUE', '所选价格不属于本设备所在场地，请重新选择', {
      price_id: req.price_id,
    });
  if (ctx.price_id === null || !ctx.price_active || ctx.price_fen === null || ctx.minutes === null)
    throw new HttpError(400, 'PRICE_NOT_FOUND', '所选价格不存在或已下架，请重新选择', {
      price_id: req.price_id,
    });
  if (ctx.merchant_status !== 'active') throw new HttpError(409, 'MERCHANT_DISABLED', '该商户已停止营业');
  return { price_fen: ctx.price_fen, minutes: ctx.minutes };
}

/** The movement of a wallet pay: the member's debit, the split of its principal part, cash and bonus parts. */
async function payEntries(
  tx: Tx,
  ctx: PayContext,
  wallet: Wallet,
  take: { cash_fen: number; principal_fen: number; bonus_fen: number },
): Promise<Entry[]> {
  const split = computeSplit(take.cash_fen + take.principal_fen, ctx.fee_rate_bp ?? 0, ctx.rules);
  const partners = new Map<number, number>();
  for (const r of ctx.rules) {
    if (!split.shares.some((s) => s.account_id === r.partner_account_id)) continue;
    const id = r.wallet_id ?? (await partnerWallet(tx, r.partner_account_id, ctx.merchant_id)).id;
    partners.set(r.partner_account_id, id);
  }
  const needMerchant = split.merchant_fen > 0 || take.cash_fen > 0;
  const merchant = needMerchant ? (ctx.merchant_wallet ?? (await merchantWallet(tx, ctx.merchant_id)).id) : 0;
  const platform = split.fee_fen > 0 ? (ctx.platform_wallet ?? (await platformWallet(tx)).id) : 0;
  const entries: Entry[] = [
    { wallet_id: wallet.id, bucket: 'cash_principal', amount_fen: -take.cash_fen },
    { wallet_id: wallet.id, bucket: 'principal', amount_fen: -take.principal_fen },
    { wallet_id: wallet.id, bucket: 'bonus', amount_fen: -take.bonus_fen },
    ...splitEntries(split, { platform, merchant, partners }),
  ];
  if (take.cash_fen > 0) {
    // The cash part is the merchant's already, in its till (docs/decisions.md D18).
    const till = ctx.till_wallet ?? (await externalWallet(tx, 'till')).id;
    entries.push({ wallet_id: till, bucket: 'principal', amount_fen: take.cash_fen });
    entries.push({ wallet_id: merchant, bucket: 'principal', amount_fen: -take.cash_fen });
  }
  if (take.bonus_fen > 0) {
    const promo = ctx.promotion_wallet ?? (await externalWallet(tx, 'promotion')).id;
    entries.push({ wallet_id: promo, bucket: 'principal', amount_fen: take.bonus_fen });
  }
  return entries;
}

interface PaidOrder {
  order_no: string;
  member_id: number;
  merchant_id: number;
  venue_id: number;
  device_id: number;
  price_id: number;
  amount_fen: number;
  bonus_fen: number;
  cash_fen: number;
  minutes: number;
  key: string | null;
  now: Date;
}

/**
 * The paid order, its `starting` session and the ledger movement in one statement whose text is built once
 * (server/db/prebuilt.ts). A busy device (a session already active on it, committed by a pay that did not wait on
 * this member's wallet) fails the statement on the one-active-session index: nothing is written, and the pay
 * answers busy (pay.ts). The statement cannot leave a partial result for the code to undo: on PostgreSQL its COMMIT
 * is already on the wire behind it (D32).
 */
const paidOrderRow = prebuiltSql<
  Omit<PaidOrder, 'now'> & {
    now: string;
    status: string;
    ack_deadline: string;
    memo: string;
  } & MovementArrays,
  { order_id: number; session_id: number }
>(
  (p) => sql`
    with o as (
      insert into orders (order_no, kind, method, status, member_id, merchant_id, venue_id, device_id, price_id,
        amount_fen, bonus_fen, cash_fen, minutes, idempotency_key, paid_at, created_at)
      values (${p.order_no}::text, 'consume', 'wallet', 'paid', ${p.member_id}::int, ${p.merchant_id}::int,
        ${p.venue_id}::int, ${p.device_id}::int, ${p.price_id}::int, ${p.amount_fen}::int, ${p.bonus_fen}::int,
        ${p.cash_fen}::int, ${p.minutes}::int, ${p.key}::text, ${p.now}::timestamptz, ${p.now}::timestamptz)
      returning id),
    s as (
      insert into device_sessions (order_id, device_id, member_id, minutes, status, ack_deadline, created_at)
      select o.id, ${p.device_id}::int, ${p.member_id}::int, ${p.minutes}::int, ${p.status}::text,
        ${p.ack_deadline}::timestamptz, ${p.now}::timestamptz from o
      returning id),
    t as (
      insert into ledger_transactions (kind, order_id, memo)
      select 'consume', o.id, ${p.memo}::text from o
      returning id),
    ${movementAfter(p)}
    select o.id as order_id, (select id from s) as session_id from o`,
);

/** Inserts the paid order, its `starting` session and the movement in one statement (a busy device: it fails). */
async function insertPaidOrder(
  tx: Tx,
  o: PaidOrder,
  entries: Entry[],
): Promise<{ order_id: number; session_id: number }> {
  const s = startingSession({
    order_id: 0,
    device_id: o.device_id,
    member_id: o.member_id,
    minutes: o.minutes,
    now: o.now,
  });
  const [row] = await paidOrderRow(tx, {
    ...o,
    now: o.now.toISOString(),
    status: s.status,
    ack_deadline: s.ack_deadline.toISOString(),
    memo: `余额支付 ${o.order_no}`,
    ...movementArrays({ kind: 'consume', entries }),
  });
  if (!row) throw new Error('order not inserted');
  return row;
}

/**
 * The wallet pay's transaction body, for the member whose session cookie hashes to `sessionHash` (no live session:
 * 401, docs/decisions.md D31). Refusals throw (the transaction rolls back, nothing changes); a first order under the
 * same key comes back as `replayOf` for the caller to compare and replay.
 */
export async function walletPayTx(
  tx: Tx,
  sessionHash: string,
  req: PayRequest,
  key: string | null,
  now: Date,
): Promise<WalletPayResult> {
  // One statement resolves the member's session and, when the member has a wallet at the device's merchant, locks it
  // and reads the context; two more (the wallet opened) on the first pay there.
  const resolved = await sessionPayContext(tx, {
    tokenHash: sessionHash,
    now,
    deviceId: req.device_id,
    priceId: req.price_id,
    key,
  });
  if (!resolved) throw memberSessionRequired();
  const { memberId, locked } = resolved;
  const q = { memberId, deviceId: req.device_id, priceId: req.price_id, key };
  const wallet = locked?.wallet ?? (await openWalletForDevice(tx, memberId, req.device_id));
  const ctx = locked?.ctx ?? (wallet && (await payContext(tx, q)));
  if (ctx?.replay_id != null || (!ctx && key)) {
    // A twin request with the same key may have committed while we waited for the wallet lock.
    const first = key ? await findByKey(tx, memberId, key) : undefined;
    if (first) return { replayOf: first };
  }
  if (!wallet || !ctx) throw new HttpError(404, 'DEVICE_NOT_FOUND', '设备不存在');
  if (ctx.merchant_id !== wallet.merchant_id) throw deviceRefusal('disabled');
  const price = validate(ctx, req);
  const heartbeat = ctx.heartbeat_ms === null ? null : new Date(ctx.heartbeat_ms);
  const available = availabilityOf(
    { status: ctx.device_status, last_heartbeat_at: heartbeat },
    ctx.busy,
    now,
  );
  if (available !== 'ok') throw deviceRefusal(available);
  const take = takeFromWallet(wallet, price.price_fen);
  if (!take) {
    throw new HttpError(409, 'INSUFFICIENT_BALANCE', '余额不足，请先充值或使用微信支付', {
      balance_fen: spendable(wallet),
      amount_fen: price.price_fen,
    });
  }
  const order_no = newOrderNo('consume', now);
  const entries = await payEntries(tx, ctx, wallet, take);
  // The last statement: on PostgreSQL its COMMIT goes with it (D32), so nothing may follow it but the return.
  const ids = await lastStatementCommits(tx, () =>
    insertPaidOrder(
      tx,
      {
        order_no,
        member_id: memberId,
        merchant_id: ctx.merchant_id,
        venue_id: ctx.device_venue_id,
        device_id: req.device_id,
        price_id: req.price_id,
        amount_fen: price.price_fen,
        bonus_fen: take.bonus_fen,
        cash_fen: take.cash_fen,
        minutes: price.minutes,
        key,
        now,
      },
      entries,
    ),
  );
  return {
    order: { order_no, status: 'paid', amount_fen: price.price_fen },
    sessionId: ids.session_id,
    device: { id: req.device_id, name: ctx.device_name },
    minutes: price.minutes,
  };
}
