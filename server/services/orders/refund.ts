/** Refunds: reversing what an order moved, split included, in the caller's transaction. */
import { and, asc, eq } from 'drizzle-orm';
import { proRata } from '../../../src/domain/money';
import type { Tx } from '../../db/client';
import { ledger_entries, ledger_transactions, orders, wallets } from '../../db/schema';
import { type Entry, externalWallet, memberWallet, postTransaction } from '../ledger';
import { OrderMoneyError } from './order';
import { allocateByPrefix } from './split';

/**
 * Refunds `amount_fen` of a paid consume order (a failed start, no acknowledgement, a stop before the end). Refuses more
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

  // The member's wallet before any system wallet (the lock order every movement follows).
  if (order.member_id !== null) await memberWallet(tx, order.member_id, order.merchant_id, { lock: true });

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
