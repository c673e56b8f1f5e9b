/** Reading recharge packages as the staff API answers them (one mapper), scoped to the signed-in staff. */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { RechargePackage } from '../../../src/domain/api';
import type { Package } from '../../../src/domain/packages.schema';
import { assertOwnMerchant } from '../../auth/staff.middleware';
import type { StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { merchants, packages } from '../../db/schema';
import { notFound } from '../../lib/errors';

// Table-qualified: drizzle leaves columns bare in a subquery.
const orderCount = sql<number>`(select count(*) from "orders" where "orders"."package_id" = "packages"."id")`;

/** The columns of a package answer; use with `.from(packages).innerJoin(merchants, ...)`. */
export const packageColumns = {
  p: packages,
  merchant_name: merchants.name,
  order_count: orderCount.mapWith(Number),
};

/** The order end users see them in (the order of `GET /backend/user/packages`). */
export const packageOrder = [asc(packages.sort), asc(packages.pay_fen), asc(packages.id)];

type PackageRow = { p: typeof packages.$inferSelect; merchant_name: string; order_count: number };

/** The answer shape (fixed: fields may be added, never renamed). */
export function toPackage(r: PackageRow): Package {
  return {
    id: r.p.id,
    merchant_id: r.p.merchant_id,
    merchant_name: r.merchant_name,
    name: r.p.name,
    pay_fen: r.p.pay_fen,
    bonus_fen: r.p.bonus_fen,
    active: r.p.active,
    sort: r.p.sort,
    order_count: r.order_count,
    created_at: r.p.created_at.toISOString(),
  };
}

/** One package of the staff's scope, or 404. */
export async function findPackage(db: Db | Tx, staff: StaffAuth, id: number): Promise<Package> {
  const [row] = await db
    .select(packageColumns)
    .from(packages)
    .innerJoin(merchants, eq(merchants.id, packages.merchant_id))
    .where(eq(packages.id, id));
  if (!row) throw notFound('套餐不存在');
  assertOwnMerchant(staff, row.p.merchant_id, '套餐');
  return toPackage(row);
}

/** All packages of one merchant, in order. */
export async function packagesOf(db: Db | Tx, merchantId: number): Promise<Package[]> {
  const rows = await db
    .select(packageColumns)
    .from(packages)
    .innerJoin(merchants, eq(merchants.id, packages.merchant_id))
    .where(eq(packages.merchant_id, merchantId))
    .orderBy(...packageOrder);
  return rows.map(toPackage);
}

/** A merchant's active packages as a recharge offers them (the member's sheet, the cash desk), in their order. */
export async function activePackages(db: Db, merchantId: number): Promise<RechargePackage[]> {
  return db
    .select({
      id: packages.id,
      name: packages.name,
      pay_fen: packages.pay_fen,
      bonus_fen: packages.bonus_fen,
    })
    .from(packages)
    .where(and(eq(packages.merchant_id, merchantId), eq(packages.active, true)))
    .orderBy(...packageOrder);
}
