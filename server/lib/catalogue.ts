/**
 * Helpers the merchant-owned catalogue routes share (venues, service prices, packages): which merchant a new row
 * belongs to, and reordering a list by its `sort` column.
 */
import { eq } from 'drizzle-orm';
import type { StaffAuth } from '../context';
import type { Db, Tx } from '../db/client';
import { merchants } from '../db/schema';
import { merchantScope } from '../auth/staff.middleware';
import { conflict, notFound, validationFailed } from './errors';

/**
 * The merchant a new row is created for: the staff's own (a body `merchant_id` naming another merchant answers
 * 404, as any other merchant's id does), or for the admin the `merchant_id` the body must give.
 */
export async function merchantForNewRow(
  db: Db | Tx,
  staff: StaffAuth,
  bodyMerchantId: number | undefined,
): Promise<number> {
  const scope = merchantScope(staff);
  if (scope !== null) {
    if (bodyMerchantId !== undefined && bodyMerchantId !== scope) throw notFound('商户不存在');
    return scope;
  }
  if (bodyMerchantId === undefined) throw validationFailed({ merchant_id: '请选择商户' });
  const [m] = await db.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, bodyMerchantId));
  if (!m) throw validationFailed({ merchant_id: '商户不存在' });
  return m.id;
}

/**
 * Puts the rows in the order of `wanted` (sort 1, 2, 3, ...). `wanted` must hold exactly the ids of `current`:
 * a list that changed since the screen loaded it is refused (409) rather than half applied.
 */
export async function applyOrder(
  current: number[],
  wanted: number[],
  setSort: (id: number, sort: number) => Promise<unknown>,
): Promise<void> {
  const have = new Set(current);
  if (wanted.length !== have.size || wanted.some((id) => !have.has(id))) {
    throw conflict('LIST_CHANGED', '列表已有变化，请刷新后再调整顺序', { ids: current });
  }
  for (const [i, id] of wanted.entries()) await setSort(id, i + 1);
}
