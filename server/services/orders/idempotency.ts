/** Idempotency-Key: the key's rules, finding the first order for a key and replaying its answer. */
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { PayResponse } from '../../../src/domain/api';
import type { Db, Tx } from '../../db/client';
import { orders } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import { type Order, type PaymentDeps, orderSummary } from './order';
import { usingSessionOf } from './using-session';
import { jsapiFor } from './prepay';

/** PostgreSQL unique violation (node-postgres and PGlite both carry SQLSTATE in `code`, drizzle wraps in cause). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 4; i++) {
    if (typeof e === 'object' && (e as { code?: unknown }).code === '23505') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The answer to a repeated request with the same Idempotency-Key: the first order, as it is now. */
export async function replay(deps: PaymentDeps, order: Order, returnPath: string): Promise<PayResponse> {
  const body: PayResponse = { order: orderSummary(order) };
  if (order.kind === 'consume') {
    const session = await usingSessionOf(deps.db, order);
    if (session) body.session = session;
  }
  if (order.method === 'wechat' && order.wechat_prepay_id && order.status === 'pending' && deps.wechat) {
    body.jsapi = jsapiFor(deps.wechat, order.wechat_prepay_id, returnPath);
  }
  return body;
}

export async function findByKey(db: Db | Tx, memberId: number, key: string): Promise<Order | undefined> {
  const [o] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.member_id, memberId), eq(orders.idempotency_key, key)));
  return o;
}

export function sameRequest(o: Order, expect: Partial<Order>): void {
  for (const [k, v] of Object.entries(expect)) {
    if (o[k as keyof Order] !== v) {
      throw new HttpError(409, 'IDEMPOTENCY_KEY_REUSED', '该 Idempotency-Key 已用于另一笔不同的请求', {
        order_no: o.order_no,
      });
    }
  }
}

export const IdempotencyKeySchema = z
  .string()
  .trim()
  .min(1, 'Idempotency-Key 不能为空')
  .max(100, 'Idempotency-Key 最长 100 个字符')
  .regex(/^[\x21-\x7e]+$/, 'Idempotency-Key 只能包含可见 ASCII 字符');
