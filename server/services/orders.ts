/**
 * Orders and the money they move (docs/money.md): order numbers, the split of a consumption (platform fee, partner
 * shares, merchant settlement), wallet debits, recharge credits and refunds. Everything here runs inside the
 * caller's DB transaction and writes balances only through the ledger service.
 */
import { randomInt } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { proRata } from '../../src/domain/money';
import type { Tx } from '../db/client';
import { ledger_entries, ledger_transactions, merchants, orders, share_rules, wallets } from '../db/schema';
import {
  type Entry,
  type Wallet,
  externalWallet,
  memberWallet,
  merchantWallet,
  partnerWallet,
  platformWallet,
  postTransaction,
} from './ledger';

export type Order = typeof orders.$inferSelect;

/** A refund or settlement the order does not allow (more than was paid, unpaid order...): a caller's bug. */
export class OrderMoneyError extends Error {
  override readonly name = 'OrderMoneyError';
}

// ---------------------------------------------------------------- order numbers

/**
 * `C` (consume) or `R` (recharge) + UTC yyyyMMddHHmmss + 10 random digits: 25 characters, valid as WeChat's
 * out_trade_no (6-32 of [0-9A-Za-z]), sortable by time, and not guessable from a neighbour (the public order query
 * takes it).
 */
export function newOrderNo(kind: 'consume' | 'recharge', now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14);
  const rand = `${randomInt(0, 100_000).toString().padStart(5, '0')}${randomInt(0, 100_000).toString().padStart(5, '0')}`;
  return `${kind === 'consume' ? 'C' : 'R'}${stamp}${rand}`;
}

// ---------------------------------------------------------------- the split

export interface Split {
  fee_fen: number;
  shares: { account_id: number; amount_fen: number }[];
  merchant_fen: number;
}

/**
 * Splits the principal (real money) part of a consumption: platform fee = floor(principal * fee_rate_bp / 10000);
 * each partner share = floor((principal - fee) * ratio_bp / 10000) by the venue's rules (capped so shares never
 * exceed the net); the rest to the merchant. The parts always add up to `principalFen`.
 */
export function computeSplit(
  principalFen: number,
  feeRateBp: number,
  rules: { partner_account_id: number; ratio_bp: number }[],
): Split {
  const fee = proRata(principalFen, feeRateBp, 10_000);
  const net = principalFen - fee;
  let left = net;
  const shares: Split['shares'] = [];
  for (const r of [...rules].sort((a, b) => a.partner_account_id - b.partner_account_id)) {
    const amount = Math.min(proRata(net, r.ratio_bp, 10_000), left);
    left -= amount;
    if (amount > 0) shares.push({ account_id: r.partner_account_id, amount_fen: amount });
  }
  return { fee_fen: fee, shares, merchant_fen: left };
}

/** Ledger credits for a split: platform fee, partner shares, merchant settlement (principal buckets). */
async function splitCredits(tx: Tx, order: Order, principalFen: number): Promise<Entry[]> {
  if (principalFen === 0) return [];
  const [merchant] = await tx
    .select({ fee_rate_bp: merchants.fee_rate_bp })
    .from(merchants)
    .where(eq(merchants.id, order.merchant_id));
  if (!merchant) throw new OrderMoneyError(`merchant ${order.merchant_id} not found`);
  const rules =
    order.venue_id === null
      ? []
      : await tx
          .select({ partner_account_id: share_rules.partner_account_id, ratio_bp: share_rules.ratio_bp })
          .from(share_rules)
          .where(
            and(eq(share_rules.venue_id, order.venue_id), eq(share_rules.merchant_id, order.merchant_id)),
          );
  const split = computeSplit(principalFen, merchant.fee_rate_bp, rules);
  const entries: Entry[] = [];
  if (split.fee_fen > 0)
    entries.push({
      wallet_id: (await platformWallet(tx)).id,
      bucket: 'principal',
      amount_fen: split.fee_fen,
    });
  for (const s of split.shares) {
    const w = await partnerWallet(tx, s.account_id, order.merchant_id);
    entries.push({ wallet_id: w.id, bucket: 'principal', amount_fen: s.amount_fen });
  }
  if (split.merchant_fen > 0) {
    const w = await merchantWallet(tx, order.merchant_id);
    entries.push({ wallet_id: w.id, bucket: 'principal', amount_fen: split.merchant_fen });
  }
  return entries;
}

// ---------------------------------------------------------------- paying

/** How a wallet pay takes the amount: principal first, then bonus (decision, docs/money.md). */
export function takeFromWallet(
  w: Pick<Wallet, 'principal_fen' | 'bonus_fen'>,
  amountFen: number,
): { principal_fen: number; bonus_fen: number } | null {
  if (w.principal_fen + w.bonus_fen < amountFen) return null;
  const principal = Math.min(w.principal_fen, amountFen);
  return { principal_fen: principal, bonus_fen: amountFen - principal };
}

/**
 * Debits a consume order from the member's (already locked) wallet and splits it: the principal part is split,
 * the bonus part goes back to external promotion (it was never money). Sets paid/paid_at/bonus_fen on the order.
 * Returns false when the balance does not cover the amount (nothing written).
 */
export async function settleWalletConsume(tx: Tx, order: Order, wallet: Wallet, now: Date): Promise<boolean> {
  const take = takeFromWallet(wallet, order.amount_fen);
  if (!take) return false;
  const entries: Entry[] = [
    { wallet_id: wallet.id, bucket: 'principal', amount_fen: -take.principal_fen },
    { wallet_id: wallet.id, bucket: 'bonus', amount_fen: -take.bonus_fen },
    ...(await splitCredits(tx, order, take.principal_fen)),
  ];
  if (take.bonus_fen > 0) {
    const promo = await externalWallet(tx, 'promotion');
    entries.push({ wallet_id: promo.id, bucket: 'principal', amount_fen: take.bonus_fen });
  }
  await postTransaction(tx, {
    kind: 'consume',
    order_id: order.id,
    memo: `余额支付 ${order.order_no}`,
    entries,
  });
  await tx
    .update(orders)
    .set({ status: 'paid', paid_at: now, bonus_fen: take.bonus_fen })
    .where(eq(orders.id, order.id));
  return true;
}

/**
 * Books a WeChat payment of a pending order (called once, from a verified notification or an order query, with
 * the order row locked): a consume is split at once; a recharge credits the member's principal (pay) and bonus
 * (from external promotion), not split. Sets paid/paid_at/transaction id.
 */
export async function settleWechatPayment(
  tx: Tx,
  order: Order,
  payment: { transaction_id: string | null; now: Date },
): Promise<void> {
  if (order.status !== 'pending')
    throw new OrderMoneyError(`order ${order.order_no} is ${order.status}, not pending`);
  const wechat = await externalWallet(tx, 'wechat');
  const entries: Entry[] = [{ wallet_id: wechat.id, bucket: 'principal', amount_fen: -order.amount_fen }];
  if (order.kind === 'consume') {
    entries.push(...(await splitCredits(tx, order, order.amount_fen)));
  } else {
    if (order.member_id === null) throw new OrderMoneyError(`recharge ${order.order_no} has no member`);
    const w = await memberWallet(tx, order.member_id, order.merchant_id);
    entries.push({ wallet_id: w.id, bucket: 'principal', amount_fen: order.amount_fen });
    if (order.bonus_fen > 0) {
      const promo = await externalWallet(tx, 'promotion');
      entries.push({ wallet_id: promo.id, bucket: 'principal', amount_fen: -order.bonus_fen });
      entries.push({ wallet_id: w.id, bucket: 'bonus', amount_fen: order.bonus_fen });
    }
  }
  await postTransaction(tx, {
    kind: order.kind,
    order_id: order.id,
    memo: `微信支付 ${order.order_no}`,
    entries,
  });
  await tx
    .update(orders)
    .set({ status: 'paid', paid_at: payment.now, wechat_transaction_id: payment.transaction_id })
    .where(eq(orders.id, order.id));
}

// ---------------------------------------------------------------- refunds

/**
 * Allocates `part` of `total` over `weights` (which sum to `total`) by prefix floors: recipient j gets
 * floor(W_j * part / total) - floor(W_{j-1} * part / total) where W are prefix sums. The parts sum to `part`
 * exactly, each stays within [0, weight], and `part = total` gives back the weights themselves.
 */
export function allocateByPrefix(weights: number[], total: number, part: number): number[] {
  if (total === 0) return weights.map(() => 0);
  let prefix = 0;
  let prevCum = 0;
  return weights.map((w) => {
    prefix += w;
    const cum = proRata(prefix, part, total);
    const share = cum - prevCum;
    prevCum = cum;
    return share;
  });
}

/**
 * Refunds `amount_fen` of a paid consume order (devices engineer: failed start, no ack, stop early). Refuses more
 * than is left to refund. Reverses what the payment did, proportionally and cumulatively (so two partial refunds
 * that add up to the whole return exactly what was taken): a wallet pay gives back principal and bonus in the
 * proportions they were taken (bonus taken back from external promotion), a WeChat pay credits the member's wallet
 * at that merchant as principal (decision: instant, to the wallet); the split (fee, shares, merchant) is reversed
 * in the same proportion. Sets refunded_fen and status 'refunded'. A zero amount is a no-op.
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
  const before = order.refunded_fen;
  const after = before + r;
  if (after > order.amount_fen) {
    throw new OrderMoneyError(
      `refund of ${r} on order ${order.order_no} exceeds what is left (${order.amount_fen - before})`,
    );
  }

  // The payment: what it debited (sources) and credited (recipients), per wallet and bucket.
  const paymentEntries = await tx
    .select({
      wallet_id: ledger_entries.wallet_id,
      bucket: ledger_entries.bucket,
      amount_fen: ledger_entries.amount_fen,
      kind: wallets.kind,
      code: wallets.code,
    })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
    .where(and(eq(ledger_transactions.order_id, order.id), eq(ledger_transactions.kind, 'consume')))
    .orderBy(asc(ledger_entries.id));
  if (paymentEntries.length === 0)
    throw new OrderMoneyError(`order ${order.order_no} has no payment in the ledger`);

  const total = order.amount_fen;
  const bonusTaken = order.method === 'wallet' ? order.bonus_fen : 0;
  const principalTaken = total - bonusTaken;
  // Cumulative split of refunds into bonus and principal parts.
  const bonusBack = (cum: number) => proRata(bonusTaken, cum, total);
  const dBonus = bonusBack(after) - bonusBack(before);
  const principalBack = (cum: number) => cum - bonusBack(cum);
  const dPrincipal = r - dBonus;

  const entries: Entry[] = [];

  // 1. Reverse the split of the principal part over what each recipient still holds from this order: shares by
  //    prefix floors of the remaining amounts (platform first, partners, the merchant last so it absorbs rounding),
  //    so every share is within [0, remaining] and the last refund returns exactly the rest.
  const rank = (k: string) => (k === 'platform' ? 0 : k === 'partner' ? 1 : 2);
  const recipients = paymentEntries
    .filter((e) => e.amount_fen > 0 && !(e.kind === 'external' && e.code === 'promotion'))
    .sort((a, b) => rank(a.kind) - rank(b.kind) || a.wallet_id - b.wallet_id);
  const reversed = await tx
    .select({
      wallet_id: ledger_entries.wallet_id,
      bucket: ledger_entries.bucket,
      amount_fen: ledger_entries.amount_fen,
    })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .where(and(eq(ledger_transactions.order_id, order.id), eq(ledger_transactions.kind, 'refund')));
  const remaining = recipients.map(
    (e) =>
      e.amount_fen +
      reversed
        .filter((x) => x.wallet_id === e.wallet_id && x.bucket === e.bucket && x.amount_fen < 0)
        .reduce((s, x) => s + x.amount_fen, 0),
  );
  const remainingTotal = remaining.reduce((s, x) => s + x, 0);
  if (remainingTotal !== principalTaken - principalBack(before)) {
    throw new OrderMoneyError(
      `order ${order.order_no}: split left to reverse ${remainingTotal} does not match`,
    );
  }
  const parts = allocateByPrefix(remaining, remainingTotal, dPrincipal);
  recipients.forEach((e, i) => {
    entries.push({ wallet_id: e.wallet_id, bucket: e.bucket, amount_fen: -(parts[i] ?? 0) });
  });

  // 2. The bonus part of a wallet pay comes back out of external promotion.
  if (dBonus > 0) {
    const promo = await externalWallet(tx, 'promotion');
    entries.push({ wallet_id: promo.id, bucket: 'principal', amount_fen: -dBonus });
  }

  // 3. Credit the member (or, with no member, whatever was debited).
  if (order.method === 'wallet' || (order.method === 'wechat' && order.member_id !== null)) {
    if (order.member_id === null) throw new OrderMoneyError(`wallet order ${order.order_no} has no member`);
    const w = await memberWallet(tx, order.member_id, order.merchant_id);
    entries.push({ wallet_id: w.id, bucket: 'principal', amount_fen: dPrincipal });
    entries.push({ wallet_id: w.id, bucket: 'bonus', amount_fen: dBonus });
  } else {
    const sources = paymentEntries.filter((e) => e.amount_fen < 0);
    const shares = allocateByPrefix(
      sources.map((e) => -e.amount_fen),
      total,
      r,
    );
    sources.forEach((e, i) =>
      entries.push({ wallet_id: e.wallet_id, bucket: e.bucket, amount_fen: shares[i] ?? 0 }),
    );
  }

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

/** Orders by number (helper for routes and tests). */
export async function findOrdersByNo(tx: Tx, orderNos: string[]): Promise<Order[]> {
  if (orderNos.length === 0) return [];
  return tx.select().from(orders).where(inArray(orders.order_no, orderNos));
}
