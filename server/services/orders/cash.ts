/**
 * Cash taken by staff at the merchant's counter (docs/decisions.md D18): a cash recharge credits the member's cash
 * principal, a cash consumption order is paid at the counter. The cash sits with the merchant, so neither credits
 * its settlement wallet; spending cash still owes the platform fee and partner shares, charged to that wallet.
 * Everything runs inside the caller's DB transaction and writes balances only through the ledger service.
 */
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { ledger_transactions, orders } from '../../db/schema';
import { externalWallet, postTransaction } from '../ledger';
import { type Order, OrderMoneyError } from './order';
import { rechargeCredits } from './settle';
import { cashPartEntries, splitCredits } from './split';

async function refuseSecondPayment(tx: Tx, order: Order): Promise<void> {
  const [booked] = await tx
    .select({ id: ledger_transactions.id })
    .from(ledger_transactions)
    .where(and(eq(ledger_transactions.order_id, order.id), eq(ledger_transactions.kind, order.kind)))
    .limit(1);
  if (booked) throw new OrderMoneyError(`order ${order.order_no} is already booked`);
}

/**
 * Books a cash recharge order (kind 'recharge', method 'cash', a member): the member's wallet at the order's
 * merchant gets the paid amount as cash principal (from external `cash`) and the bonus (from external promotion).
 * Not split: the money is the member's until spent, and the cash is in the merchant's till. Opens the wallet on the
 * first recharge. Lock the member's wallet first (`memberWallet(..., { lock: true })`), as every movement does.
 * Sets status 'paid' and paid_at (kept when already set). Refuses an order already booked.
 */
export async function bookCashRecharge(tx: Tx, order: Order, now?: Date): Promise<void> {
  if (order.kind !== 'recharge' || order.method !== 'cash' || order.member_id === null) {
    throw new OrderMoneyError(`order ${order.order_no} is not a member's cash recharge`);
  }
  await refuseSecondPayment(tx, order);
  const cash = await externalWallet(tx, 'cash');
  await postTransaction(tx, {
    kind: 'recharge',
    order_id: order.id,
    memo: `现金充值 ${order.order_no}`,
    entries: [
      { wallet_id: cash.id, bucket: 'principal', amount_fen: -order.amount_fen },
      ...(await rechargeCredits(tx, order, 'cash_principal')),
    ],
  });
  await tx
    .update(orders)
    .set({ status: 'paid', paid_at: order.paid_at ?? now ?? new Date(), cash_fen: 0 })
    .where(eq(orders.id, order.id));
}

/**
 * Books a cash consumption order (kind 'consume', method 'cash': a remote start the customer paid at the counter).
 * Reported as cash (`cash_fen` = the amount) and split like any real money, but the merchant's part is the cash it
 * already holds: its settlement wallet is charged the platform fee and partner shares and credited nothing. A refund
 * (`refundOrder`) returns refunded cash and reverses exactly that. Sets status 'paid' and paid_at.
 */
export async function settleCashConsume(tx: Tx, order: Order, now: Date): Promise<void> {
  if (order.kind !== 'consume' || order.method !== 'cash') {
    throw new OrderMoneyError(`order ${order.order_no} is not a cash consumption`);
  }
  await refuseSecondPayment(tx, order);
  const cash = await externalWallet(tx, 'cash');
  await postTransaction(tx, {
    kind: 'consume',
    order_id: order.id,
    memo: `现金消费 ${order.order_no}`,
    entries: [
      { wallet_id: cash.id, bucket: 'principal', amount_fen: -order.amount_fen },
      ...(await splitCredits(tx, order, order.amount_fen)),
      ...(await cashPartEntries(tx, order, order.amount_fen)),
    ],
  });
  await tx
    .update(orders)
    .set({ status: 'paid', paid_at: now, cash_fen: order.amount_fen, bonus_fen: 0 })
    .where(eq(orders.id, order.id));
}
