/**
 * Orders and the money they move (docs/money.md), one file per job: the order itself, the split, settling, refunds,
 * idempotency, paying for a device, recharging, WeChat prepay, notifications and status queries. Everything runs
 * inside the caller's DB transaction and writes balances only through the ledger service.
 */
export {
  type Order,
  OrderMoneyError,
  newOrderNo,
  findOrdersByNo,
  type PaymentDeps,
  orderSummary,
  paymentDeps,
  BOOKED_STATUSES,
} from './order';
export { type Split, computeSplit, allocateByPrefix } from './split';
export { takeFromWallet, settleWalletConsume, settleWechatPayment } from './settle';
export { refundOrder } from './refund';
export { bookCashRecharge, settleCashConsume } from './cash';
export { IdempotencyKeySchema } from './idempotency';
export { payForDevice } from './pay';
export { PAY_WINDOW_MS } from './prepay';
export { rechargePackage } from './recharge';
export { PaymentMismatchError, type ApplyResult, applyWechatTransaction } from './notify';
export { ORDER_QUERY_INTERVAL_MS, queryOrder } from './query';
export { toUsingSession, usingSessionColumns, type UsingSessionRow } from './using-session';
export { safeReturnPath } from '../../lib/return-path';
