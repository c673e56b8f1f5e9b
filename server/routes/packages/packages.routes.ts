/**
 * `/backend/merchant/packages`: a merchant's recharge packages (pay, bonus, active, order); the admin sees every
 * merchant's, with `?merchant_id=`, and names the merchant on create. End users see exactly the active ones
 * (`GET /backend/user/packages`). Recharge orders keep the amount and bonus they were paid with, so editing a
 * package never changes a past order; a package that orders refer to cannot be deleted (409), only deactivated.
 * Every write leaves an audit row in its transaction (docs/decisions.md D16).
 */
import { and, asc, count, eq, inArray, max, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import {
  PackageInputSchema,
  PackageListQuerySchema,
  PackageUpdateSchema,
} from '../../../src/domain/packages.schema';
import { ReorderSchema } from '../../../src/domain/venues.schema';
import { merchantWhere, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import { merchants, packages } from '../../db/schema';
import { applyOrder, merchantForNewRow } from '../../lib/catalogue';
import { conflict, notFound } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/list';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { updateAudited, writeAudit } from '../../services/audit';
import { findPackage, packageColumns, packageOrder, packagesOf, toPackage } from './package-rows';

/** Most packages one merchant may have (the recharge page lists them all). */
export const MAX_PACKAGES_PER_MERCHANT = 50;

export function packagesRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireStaff('merchant.packages'));

  r.get('/', async (c) => {
    const staff = staffOf(c);
    const { db } = c.var.deps;
    const q = parseQuery(c, PackageListQuerySchema);
    const where: (SQL | undefined)[] = [
      merchantWhere(staff, packages.merchant_id),
      q.merchant_id ? eq(packages.merchant_id, q.merchant_id) : undefined,
      q.active ? eq(packages.active, q.active === 'true') : undefined,
    ];
    const [rows, [total]] = await Promise.all([
      db
        .select(packageColumns)
        .from(packages)
        .innerJoin(merchants, eq(merchants.id, packages.merchant_id))
        .where(and(...where))
        .orderBy(asc(packages.merchant_id), ...packageOrder)
        .limit(q.page_size)
        .offset(offsetOf(q)),
      db
        .select({ n: count() })
        .from(packages)
        .where(and(...where)),
    ]);
    return c.json(pageOf(rows.map(toPackage), total?.n ?? 0, q));
  });

  r.post('/', async (c) => {
    const staff = staffOf(c);
    const { merchant_id, ...input } = await parseJson(c, PackageInputSchema);
    const created = await c.var.deps.db.transaction(async (tx) => {
      const owner = await merchantForNewRow(tx, staff, merchant_id);
      const [stats] = await tx
        .select({ n: count(), sort: max(packages.sort) })
        .from(packages)
        .where(eq(packages.merchant_id, owner));
      if ((stats?.n ?? 0) >= MAX_PACKAGES_PER_MERCHANT) {
        throw conflict(
          'TOO_MANY_PACKAGES',
          `最多 ${MAX_PACKAGES_PER_MERCHANT} 个充值套餐，请先停用或删除不用的套餐`,
        );
      }
      const [row] = await tx
        .insert(packages)
        .values({ ...input, merchant_id: owner, sort: input.sort ?? (stats?.sort ?? 0) + 1 })
        .returning({ id: packages.id });
      const pkg = await findPackage(tx, staff, row!.id);
      await writeAudit(tx, staff, {
        action: 'packages.create',
        entity: 'packages',
        entity_id: pkg.id,
        merchant_id: owner,
        after: pkg,
      });
      return pkg;
    });
    return c.json(created, 201);
  });

  // Before `/:id`: one merchant's packages in their new order, in one transaction.
  r.put('/order', async (c) => {
    const staff = staffOf(c);
    const { ids } = await parseJson(c, ReorderSchema);
    const items = await c.var.deps.db.transaction(async (tx) => {
      const named = await tx
        .select({ id: packages.id, merchant_id: packages.merchant_id })
        .from(packages)
        .where(and(inArray(packages.id, ids), merchantWhere(staff, packages.merchant_id)));
      if (named.length !== ids.length) throw notFound('套餐不存在');
      const owners = new Set(named.map((p) => p.merchant_id));
      if (owners.size !== 1) throw conflict('LIST_CHANGED', '只能调整同一商户的套餐顺序');
      const [owner] = owners;
      const before = await packagesOf(tx, owner!);
      await applyOrder(
        before.map((p) => p.id),
        ids,
        (id, sort) => tx.update(packages).set({ sort }).where(eq(packages.id, id)),
      );
      const after = await packagesOf(tx, owner!);
      await writeAudit(tx, staff, {
        action: 'packages.reorder',
        entity: 'packages',
        merchant_id: owner,
        before: before.map((p) => p.id),
        after: after.map((p) => p.id),
      });
      return after;
    });
    return c.json(pageOf(items, items.length, { page: 1, page_size: MAX_PACKAGES_PER_MERCHANT }));
  });

  r.get('/:id', async (c) => c.json(await findPackage(c.var.deps.db, staffOf(c), parseParam(c, 'id'))));

  r.put('/:id', async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    const input = await parseJson(c, PackageUpdateSchema);
    const updated = await c.var.deps.db.transaction((tx) =>
      updateAudited(tx, staff, {
        entity: 'packages',
        id,
        input,
        find: findPackage,
        update: (t, rowId, set) => t.update(packages).set(set).where(eq(packages.id, rowId)),
      }),
    );
    return c.json(updated);
  });

  r.delete('/:id', async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    await c.var.deps.db.transaction(async (tx) => {
      // Locked first: a recharge being placed with this package holds a key-share lock on it, so the count
      // below sees every order that can ever refer to it.
      await tx
        .select({ id: packages.id })
        .from(packages)
        .where(and(eq(packages.id, id), merchantWhere(staff, packages.merchant_id)))
        .for('update');
      const before = await findPackage(tx, staff, id);
      if (before.order_count > 0) {
        throw conflict(
          'PACKAGE_IN_USE',
          `该套餐已有 ${before.order_count} 笔充值订单，不能删除；可以改为停用，用户将不再看到它`,
          { order_count: before.order_count },
        );
      }
      await tx.delete(packages).where(eq(packages.id, id));
      await writeAudit(tx, staff, {
        action: 'packages.delete',
        entity: 'packages',
        entity_id: id,
        merchant_id: before.merchant_id,
        before,
      });
    });
    return c.body(null, 204);
  });

  return r;
}
