/**
 * Settling a paid consumption: the wallet debit (cash principal, online principal, then bonus) and the WeChat payment
 * credits.
 */
import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { lastStatementCommits } from '../../db/commit-with-last';
import { prebuiltSql } from '../../db/prebuilt';
import { orders } from '../../db/schema';
import {
  type Entry,
  type Wallet,
  externalWallet,
  externalWalletIds,
  memberWallet,
  movementArrays,
  movementAfter,
  postTransaction,
  spendable,
  type MovementArrays,
} from '../ledger';
import { type Order, OrderMoneyError } from './order';
import { cashPartEntries, splitCredits } from './split';

/**
 * How a wallet pay takes the amount: cash principal first, then online principal, then bonus (docs/decisions.md D18;
 * principal before bonus, docs/money.md). Null when the balance does not cover it.
 */
export function takeFromWallet(
  w: Pick<Wallet, 'principal_fen' | 'cash_principal_fen' | 'bonus_fen'>,
  amountFen: number,
): { cash_fen: number; principal_fen: number; bonus_fen: number } | null {
  if (spendable(w) < amountFen) return null;
  const cash = Math.min(w.cash_principal_fen, amountFen);
  const principal = Math.min(w.principal_fen, amountFen - cash);
  return { cash_fen: cash, principal_fen: principal, bonus_fen: amountFen - cash - principal };
}

/**
 * Debits a consume order from the member's (already locked) wallet and splits it (docs/decisions.md D18): the whole
 * principal part (cash and online) is split; the cash part is the merchant's already (`cashPartEntries`); the bonus
 * part goes back to external promotion (it was never money). Sets paid/paid_at/bonus_fen/cash_fen on the order.
 * Returns false when the balance does not cover the amount (nothing written).
 */
export async function settleWalletConsume(tx: Tx, order: Order, wallet: Wallet, now: Date): Promise<boolean> {
  const take = takeFromWallet(wallet, order.amount_fen);
  if (!take) return false;
  const entries: Entry[] = [
    { wallet_id: wallet.id, bucket: 'cash_principal', amount_fen: -take.cash_fen },
    { wallet_id: wallet.id, bucket: 'principal', amount_fen: -take.principal_fen },
    { wallet_id: wallet.id, bucket: 'bonus', amount_fen: -take.bonus_fen },
    ...(await splitCredits(tx, order, take.cash_fen + take.principal_fen)),
    ...(await cashPartEntries(tx, order, take.cash_fen)),
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
    .set({ status: 'paid', paid_at: now, bonus_fen: take.bonus_fen, cash_fen: take.cash_fen })
    .where(eq(orders.id, order.id));
  return true;
}

/**
 * Every WeChat payment ends here, in one statement whose text is built once (server/db/prebuilt.ts): the order marked
 * paid (`o`), its ledger transaction (`t`, only when the order was there to mark) and the movement (`movementAfter`).
 */
const markPaidPosting = prebuiltSql<
  { id: number; now: string; transaction_id: string | null; kind: string; memo: string } & MovementArrays,
  { order_id: number | null }
>(
  (p) => sql`
    with o as (
      update orders set status = 'paid', paid_at = ${p.now}::timestamptz,
        wechat_transaction_id = ${p.transaction_id}::text
      where id = ${p.id}::int
      returning id),
    t as (
      insert into ledger_transactions (kind, order_id, memo)
      select ${p.kind}::text, o.id, ${p.memo}::text from o
      returning id),
    ${movementAfter(p)}
    select (select id from o) as order_id`,
);

/**
 * Books a WeChat payment of a pending order (called once, from a verified notification or an order query, with
 * the order row locked): a consume is split at once; a recharge credits the member's principal (pay) and bonus
 * (from external promotion), not split. Sets paid/paid_at/transaction id and the movement in one statement
 * (`markPaidPosting`) and returns the order as written. `last`: nothing follows in the caller's transaction, so that
 * statement may carry the COMMIT (server/db/commit-with-last.ts).
 */
export async function settleWechatPayment(
  tx: Tx,
  order: Order,
  payment: { transaction_id: string | null; now: Date },
  known: { wechat: number | null; promotion: number | null } = { wechat: null, promotion: null },
  opts: { last?: boolean } = {},
): Promise<Order> {
  if (order.status !== 'pending')
    throw new OrderMoneyError(`order ${order.order_no} is ${order.status}, not pending`);
  // Lock order: a member's wallet before any system wallet, in every movement (no deadlock with a wallet pay).
  const locked =
    order.member_id === null
      ? undefined
      : await memberWallet(tx, order.member_id, order.merchant_id, { lock: true });
  // The external wallets this movement touches: as the caller found them, else in one statement.
  const bonus = order.kind === 'recharge' && order.bonus_fen > 0;
  const ext =
    known.wechat !== null && (!bonus || known.promotion !== null)
      ? { wechat: known.wechat, promotion: known.promotion ?? undefined }
      : await externalWalletIds(tx, bonus ? ['wechat', 'promotion'] : ['wechat']);
  const entries: Entry[] = [{ wallet_id: ext.wechat, bucket: 'principal', amount_fen: -order.amount_fen }];
  if (order.kind === 'consume') {
    entries.push(...(await splitCredits(tx, order, order.amount_fen)));
  } else {
    entries.push(
      ...(await rechargeCredits(tx, order, 'principal', locked, bonus ? ext.promotion : undefined)),
    );
  }
  const posting = () =>
    markPaidPosting(tx, {
      id: order.id,
      now: payment.now.toISOString(),
      transaction_id: payment.transaction_id,
      kind: order.kind,
      memo: `微信支付 ${order.order_no}`,
      ...movementArrays({ kind: order.kind, entries }),
    });
  // The caller's last statement: on PostgreSQL the COMMIT goes with it (D32). The caller holds the order's row lock,
  // so it cannot be gone; were it, the movement would not be written either (`t` follows `o`), but what the caller
  // wrote before (the notification's record) would be committed with the error below.
  const [row] = await (opts.last ? lastStatementCommits(tx, posting) : posting());
  if (row?.order_id == null) throw new OrderMoneyError(`order ${order.order_no} vanished while being paid`);
  // The caller holds the order's row lock, and the statement changed only these three columns.
  return { ...order, status: 'paid', paid_at: payment.now, wechat_transaction_id: payment.transaction_id };
}

/**
 * The member's side of a recharge: the paid amount onto the principal of its source (`principal` online,
 * `cash_principal` at the counter, docs/decisions.md D18) and the bonus from external promotion. Opens the wallet
 * and finds the promotion wallet unless the caller passes them.
 */
export async function rechargeCredits(
  tx: Tx,
  order: Order,
  bucket: 'principal' | 'cash_principal',
  wallet?: Wallet,
  promotionId?: number,
): Promise<Entry[]> {
  if (order.member_id === null) throw new OrderMoneyError(`recharge ${order.order_no} has no member`);
  // The member's wallet when the caller has it already (locked), else found or opened here.
  const w = wallet ?? (await memberWallet(tx, order.member_id, order.merchant_id));
  const entries: Entry[] = [{ wallet_id: w.id, bucket, amount_fen: order.amount_fen }];
  if (order.bonus_fen > 0) {
    const promo = promotionId ?? (await externalWallet(tx, 'promotion')).id;
    entries.push({ wallet_id: promo, bucket: 'principal', amount_fen: -order.bonus_fen });
    entries.push({ wallet_id: w.id, bucket: 'bonus', amount_fen: order.bonus_fen });
  }
  return entries;
}
