/** Refunds: reversing what an order moved, split included, in the caller's transaction. */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { ledger_entries, ledger_transactions, orders, wallets } from '../../db/schema';
import {
  type Bucket,
  type Entry,
  externalWallet,
  memberWallet,
  merchantWallet,
  postTransaction,
} from '../ledger';
import { type Order, OrderMoneyError } from './order';
import { decideWechatRefund } from './refund-outbox';
import { allocateByPrefix } from './split';

/**
 * Refunds `amount_fen` of a paid consume order (a failed start, no acknowledgement, a stop before the end). Refuses more
 * than is left to refund. A WeChat pay is refunded to WeChat: the refund is written to the outbox in this same
 * transaction and booked when WeChat reports it succeeded (`decideWechatRefund`, docs/money.md "WeChat refunds").
 * Every other order is booked at once (`bookRefund`). A zero amount is a no-op.
 */
export async function refundOrder(
  tx: Tx,
  input: { order_id: number; amount_fen: number; reason: string },
): Promise<void> {
  const { order_id, amount_fen: r, reason } = input;
  if (!Number.isSafeInteger(r) || r < 0)
    throw new OrderMoneyError(`refund amount must be whole fen >= 0: ${r}`);
  const [order] = await tx.select().from(orders).where(eq(orders.id, order_id)).for('update');
  if (!order) throw new OrderMoneyError(`order ${order_id} not found`);
  if (r === 0) return;
  if (order.kind !== 'consume')
    throw new OrderMoneyError(`order ${order.order_no} is a ${order.kind}, not a consume`);
  if (order.paid_at === null) throw new OrderMoneyError(`order ${order.order_no} was never paid`);
  if (order.method === 'wechat') return decideWechatRefund(tx, order, r, reason);
  return bookRefund(tx, order, r, reason);
}

/**
 * Books a refund of `r` fen of a paid consume order (locked by the caller) in the ledger. Reverses exactly what the
 * payment did (docs/decisions.md D18), in proportion and so that partial refunds adding up to the whole return
 * exactly what was taken: a wallet pay gives back cash principal, online principal and bonus as they were taken
 * (bonus out of external promotion); a cash order hands back refunded cash; a WeChat pay returns to external
 * `wechat` (the money went back to the member's WeChat); the split (fee, shares, the merchant's part, cash kept
 * included) is reversed in the same proportion. Sets refunded_fen and status 'refunded'. With `to:
 * 'member_wallet'` a WeChat pay's refund goes to the member's wallet at the merchant instead (a refund WeChat could
 * not pay out, redirected by staff to the merchant's bank account).
 */
export async function bookRefund(
  tx: Tx,
  order: Order,
  r: number,
  reason: string,
  to: 'payer' | 'member_wallet' = 'payer',
): Promise<void> {
  const before = order.refunded_fen;
  const after = before + r;
  const total = order.amount_fen;
  if (after > total) {
    throw new OrderMoneyError(
      `refund of ${r} on order ${order.order_no} exceeds what is left (${order.amount_fen - before})`,
    );
  }

  // The member's wallet before any system wallet (the lock order every movement follows).
  if (order.member_id !== null) await memberWallet(tx, order.member_id, order.merchant_id, { lock: true });
  const moved = await orderEntries(tx, order.id);
  if (!moved.some((e) => e.txn_kind === 'consume'))
    throw new OrderMoneyError(`order ${order.order_no} has no payment in the ledger`);

  // 1. Which sources this refund returns: bonus, cash and online principal, by prefix floors of what each still has
  //    to get back (online last, absorbing rounding), so each stays within what it gave and the last refund returns
  //    exactly the rest.
  const back = (code: string) =>
    -sumOf(moved, (e) => e.txn_kind === 'refund' && e.kind === 'external' && e.code === code);
  const bonusTaken = order.method === 'wallet' ? order.bonus_fen : 0;
  const cashTaken = order.method === 'cash' ? order.amount_fen : order.cash_fen;
  const bonusLeft = bonusTaken - back('promotion');
  const cashLeft = cashTaken - back('till');
  const onlineLeft = order.amount_fen - before - bonusLeft - cashLeft;
  if (bonusLeft < 0 || cashLeft < 0 || onlineLeft < 0)
    throw new OrderMoneyError(`order ${order.order_no}: sources left to refund do not match`);
  const [dBonus = 0, dCash = 0, dOnline = 0] = allocateByPrefix(
    [bonusLeft, cashLeft, onlineLeft],
    order.amount_fen - before,
    r,
  );

  // 2. Reverse the split of the principal part (cash and online) over what each recipient still holds from this
  //    order, by prefix floors (platform first, partners, the merchant last so it absorbs rounding).
  const entries = await reverseSplit(tx, order, moved, cashLeft + onlineLeft, dCash + dOnline, dCash);

  // 3. The bonus part of a wallet pay comes back out of external promotion.
  if (dBonus > 0) {
    const promo = await externalWallet(tx, 'promotion');
    entries.push({ wallet_id: promo.id, bucket: 'principal', amount_fen: -dBonus });
  }

  // 4. Give it back where it came from.
  entries.push(...(await giveBack(tx, order, moved, { r, dCash, dOnline, dBonus }, to)));

  await postTransaction(tx, { kind: 'refund', order_id: order.id, memo: reason.slice(0, 200), entries });
  await tx
    .update(orders)
    .set({
      refunded_fen: after,
      status: 'refunded',
      ...(after === total && order.failure_reason === null ? { failure_reason: reason.slice(0, 200) } : {}),
    })
    .where(eq(orders.id, order.id));
}

interface MovedEntry {
  txn_kind: string;
  wallet_id: number;
  bucket: Bucket;
  amount_fen: number;
  kind: string;
  code: string | null;
}

/** Every entry of the order's payment and refunds, with its wallet's kind and code. */
function orderEntries(tx: Tx, orderId: number): Promise<MovedEntry[]> {
  return tx
    .select({
      txn_kind: ledger_transactions.kind,
      wallet_id: ledger_entries.wallet_id,
      bucket: ledger_entries.bucket,
      amount_fen: ledger_entries.amount_fen,
      kind: wallets.kind,
      code: wallets.code,
    })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
    .where(
      and(
        eq(ledger_transactions.order_id, orderId),
        inArray(ledger_transactions.kind, ['consume', 'refund']),
      ),
    )
    .orderBy(asc(ledger_entries.id));
}

function sumOf(moved: MovedEntry[], pick: (e: MovedEntry) => boolean): number {
  return moved.filter(pick).reduce((s, e) => s + e.amount_fen, 0);
}

/**
 * Entries taking `part` of the split back from its recipients: the platform, the partners and the merchant (its
 * settlement plus the cash it kept in its till, docs/decisions.md D18), each within what it still holds from this
 * order. The merchant returns its share through the settlement wallet, except `cashPart`, which leaves its till
 * (back to the member's cash principal, or handed back as refunded cash).
 */
async function reverseSplit(
  tx: Tx,
  order: Order,
  moved: MovedEntry[],
  principalLeft: number,
  part: number,
  cashPart: number,
): Promise<Entry[]> {
  const settlement = await merchantWallet(tx, order.merchant_id);
  const till = await externalWallet(tx, 'till');
  const held = (ids: number[]) => sumOf(moved, (e) => ids.includes(e.wallet_id) && e.bucket === 'principal');
  const rank = (k: string) => (k === 'platform' ? 0 : 1);
  const others = [
    ...new Map(
      moved
        .filter((e) => e.txn_kind === 'consume' && (e.kind === 'platform' || e.kind === 'partner'))
        .map((e) => [e.wallet_id, e]),
    ).values(),
  ].sort((a, b) => rank(a.kind) - rank(b.kind) || a.wallet_id - b.wallet_id);
  const remaining = [...others.map((e) => held([e.wallet_id])), held([settlement.id, till.id])];
  const remainingTotal = remaining.reduce((s, x) => s + x, 0);
  if (remainingTotal !== principalLeft || remaining.some((x) => x < 0)) {
    throw new OrderMoneyError(
      `order ${order.order_no}: split left to reverse ${remainingTotal} does not match ${principalLeft}`,
    );
  }
  const parts = allocateByPrefix(remaining, remainingTotal, part);
  const merchantPart = parts[others.length] ?? 0;
  return [
    ...others.map((e, i) => ({
      wallet_id: e.wallet_id,
      bucket: 'principal' as const,
      amount_fen: -(parts[i] ?? 0),
    })),
    { wallet_id: settlement.id, bucket: 'principal', amount_fen: cashPart - merchantPart },
    { wallet_id: till.id, bucket: 'principal', amount_fen: -cashPart },
  ];
}

/**
 * The payer's side of a refund: cash as refunded cash; a member's wallet pay to the buckets it was taken from; else
 * (a WeChat pay) back to the external wallets it was taken from.
 */
async function giveBack(
  tx: Tx,
  order: Order,
  moved: MovedEntry[],
  d: { r: number; dCash: number; dOnline: number; dBonus: number },
  to: 'payer' | 'member_wallet',
): Promise<Entry[]> {
  if (to === 'member_wallet' && order.method === 'wechat') {
    if (order.member_id === null) throw new OrderMoneyError(`order ${order.order_no} has no member`);
    const w = await memberWallet(tx, order.member_id, order.merchant_id);
    return [{ wallet_id: w.id, bucket: 'principal', amount_fen: d.r }];
  }
  if (order.method === 'cash') {
    const cash = await externalWallet(tx, 'cash');
    return [{ wallet_id: cash.id, bucket: 'principal', amount_fen: d.r }];
  }
  if (order.method === 'wallet') {
    if (order.member_id === null) throw new OrderMoneyError(`wallet order ${order.order_no} has no member`);
    const w = await memberWallet(tx, order.member_id, order.merchant_id);
    return [
      { wallet_id: w.id, bucket: 'cash_principal', amount_fen: d.dCash },
      { wallet_id: w.id, bucket: 'principal', amount_fen: d.dOnline },
      { wallet_id: w.id, bucket: 'bonus', amount_fen: d.dBonus },
    ];
  }
  const sources = moved.filter((e) => e.txn_kind === 'consume' && e.amount_fen < 0 && e.kind === 'external');
  const shares = allocateByPrefix(
    sources.map((e) => -e.amount_fen),
    order.amount_fen,
    d.r,
  );
  return sources.map((e, i) => ({ wallet_id: e.wallet_id, bucket: e.bucket, amount_fen: shares[i] ?? 0 }));
}
