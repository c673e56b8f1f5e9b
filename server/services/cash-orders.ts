/**
 * Cash taken by staff (docs/decisions.md D12, docs/money.md): the ledger movements of a cash recharge and of a cash
 * consumption (a remote start the customer paid in cash). Cash comes from the external `cash` wallet (the till);
 * everything runs inside the caller's DB transaction and writes balances only through the ledger service. How cash
 * principal is tracked and split is decided here, in one place.
 */
import { eq } from 'drizzle-orm';
import type { Tx } from '../db/client';
import { orders } from '../db/schema';
import { type Entry, externalWallet, memberWallet, postTransaction } from './ledger';
import { OrderMoneyError, type Order } from './orders';
import { splitCredits } from './orders/split';

/**
 * Books a cash recharge order: the member's wallet at the order's merchant gets the paid amount as principal (from
 * the till) and the package bonus (from external promotion). Not split: the cash is in the merchant's till. The
 * wallet is opened on the first recharge; lock it first (`memberWallet(..., { lock: true })`) as every movement does.
 */
export async function bookCashRecharge(tx: Tx, order: Order): Promise<void> {
  if (order.kind !== 'recharge' || order.method !== 'cash' || order.member_id === null) {
    throw new OrderMoneyError(`order ${order.order_no} is not a member's cash recharge`);
  }
  const wallet = await memberWallet(tx, order.member_id, order.merchant_id);
  const cash = await externalWallet(tx, 'cash');
  const entries: Entry[] = [
    { wallet_id: cash.id, bucket: 'principal', amount_fen: -order.amount_fen },
    { wallet_id: wallet.id, bucket: 'principal', amount_fen: order.amount_fen },
  ];
  if (order.bonus_fen > 0) {
    const promo = await externalWallet(tx, 'promotion');
    entries.push({ wallet_id: promo.id, bucket: 'principal', amount_fen: -order.bonus_fen });
    entries.push({ wallet_id: wallet.id, bucket: 'bonus', amount_fen: order.bonus_fen });
  }
  await postTransaction(tx, {
    kind: 'recharge',
    order_id: order.id,
    memo: `现金充值 ${order.order_no}`,
    entries,
  });
}

/**
 * Books a cash consumption (no member): the price comes from the till and is split like any consumption of real
 * money. A refund (`refundOrder`) returns it to the till: refunded cash. Sets paid/paid_at on the order.
 */
export async function settleCashConsume(tx: Tx, order: Order, now: Date): Promise<void> {
  if (order.kind !== 'consume' || order.method !== 'cash') {
    throw new OrderMoneyError(`order ${order.order_no} is not a cash consumption`);
  }
  const cash = await externalWallet(tx, 'cash');
  await postTransaction(tx, {
    kind: 'consume',
    order_id: order.id,
    memo: `现金消费 ${order.order_no}`,
    entries: [
      { wallet_id: cash.id, bucket: 'principal', amount_fen: -order.amount_fen },
      ...(await splitCredits(tx, order, order.amount_fen)),
    ],
  });
  await tx.update(orders).set({ status: 'paid', paid_at: now }).where(eq(orders.id, order.id));
}
