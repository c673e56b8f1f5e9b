/** An order: its number, its public summary and using-session shape, lookups, and what the payment flows need from the app. */
import { randomInt } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import type { OrderSummary } from '../../../src/domain/api';
import type { AppDeps } from '../../context';
import type { Db, Tx } from '../../db/client';
import { orders } from '../../db/schema';
import type { Wechat } from '../../wechat/types';

export type Order = typeof orders.$inferSelect;

/** A refund or settlement the order does not allow (more than was paid, unpaid order...): a caller's bug. */
export class OrderMoneyError extends Error {
  override readonly name = 'OrderMoneyError';
}

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

/** Orders by number (helper for routes and tests). */
export async function findOrdersByNo(tx: Tx, orderNos: string[]): Promise<Order[]> {
  if (orderNos.length === 0) return [];
  return tx.select().from(orders).where(inArray(orders.order_no, orderNos));
}

/** What the payment flows need from the server's dependencies (a view of AppDeps). */
/** Orders that took money: what the histories list (a pending or closed order never charged anyone). */
export const BOOKED_STATUSES = ['paid', 'started', 'completed', 'refunded', 'failed'] as const;

/** The payment view of AppDeps (the WeChat clients and the devices service are optional parts of it). */
export function paymentDeps(deps: AppDeps): PaymentDeps {
  const d = deps as AppDeps & { wechat?: PaymentDeps['wechat']; devices?: PaymentDeps['devices'] };
  return { db: d.db, now: d.now, wechat: d.wechat, devices: d.devices };
}

export interface PaymentDeps {
  db: Db;
  now: () => Date;
  wechat?: Pick<Wechat, 'mode' | 'pay' | 'sandbox'> | undefined;
  devices?: { dispatch(session_id: number): Promise<unknown> } | undefined;
}

/** An order as the API shows it. */
export function orderSummary(o: Pick<Order, 'order_no' | 'status' | 'amount_fen'>): OrderSummary {
  return { order_no: o.order_no, status: o.status, amount_fen: o.amount_fen };
}
