/**
 * `/backend/admin/products`: device models, kept by the platform admin (docs/adding-a-resource.md: the resource
 * every staff resource copies). List with paging, search and a status filter; add; edit; retire (status) and
 * delete, refused with 409 while devices use the model. Every write leaves an audit row in its transaction.
 */
import { and, asc, count, eq, ilike, sql, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import {
  ProductInputSchema,
  ProductListQuerySchema,
  ProductUpdateSchema,
  type Product,
} from '../../../src/domain/products.schema';
import { requireAdmin, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import type { Db, Tx } from '../../db/client';
import { products } from '../../db/schema';
import { conflict, notFound } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/list';
import { likePattern } from '../../lib/search';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { writeAudit } from '../../services/audit';

type ProductRow = typeof products.$inferSelect;

/** The answer shape (fixed: fields may be added, never renamed). */
export function toProduct(row: ProductRow, deviceCount: number): Product {
  return {
    id: row.id,
    name: row.name,
    category: row.category,
    description: row.description,
    status: row.status,
    device_count: deviceCount,
    created_at: row.created_at.toISOString(),
  };
}

/** Devices of the model, counted in the same query (table-qualified: drizzle leaves columns bare in a subquery). */
const deviceCount =
  sql<number>`(select count(*) from "devices" where "devices"."product_id" = "products"."id")`.mapWith(
    Number,
  );

async function findProduct(db: Db | Tx, id: number): Promise<Product> {
  const [row] = await db.select({ p: products, n: deviceCount }).from(products).where(eq(products.id, id));
  if (!row) throw notFound('设备型号不存在');
  return toProduct(row.p, row.n);
}

export function productsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', requireStaff('admin.products'), async (c) => {
    const { db } = c.var.deps;
    const q = parseQuery(c, ProductListQuerySchema);
    const where: (SQL | undefined)[] = [
      q.q ? ilike(products.name, likePattern(q.q)) : undefined,
      q.status ? eq(products.status, q.status) : undefined,
    ];
    const [rows, [total]] = await Promise.all([
      db
        .select({ p: products, n: deviceCount })
        .from(products)
        .where(and(...where))
        .orderBy(asc(products.status), asc(products.id))
        .limit(q.page_size)
        .offset(offsetOf(q)),
      db
        .select({ n: count() })
        .from(products)
        .where(and(...where)),
    ]);
    return c.json(
      pageOf(
        rows.map((row) => toProduct(row.p, row.n)),
        total?.n ?? 0,
        q,
      ),
    );
  });

  r.get('/:id', requireStaff('admin.products'), async (c) =>
    c.json(await findProduct(c.var.deps.db, parseParam(c, 'id'))),
  );

  r.post('/', requireAdmin(), async (c) => {
    const staff = staffOf(c);
    const input = await parseJson(c, ProductInputSchema);
    const created = await c.var.deps.db.transaction(async (tx) => {
      const [row] = await tx.insert(products).values(input).returning();
      const product = toProduct(row!, 0);
      await writeAudit(tx, staff, {
        action: 'products.create',
        entity: 'products',
        entity_id: row!.id,
        after: product,
      });
      return product;
    });
    return c.json(created, 201);
  });

  r.put('/:id', requireAdmin(), async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    const input = await parseJson(c, ProductUpdateSchema);
    const updated = await c.var.deps.db.transaction(async (tx) => {
      const before = await findProduct(tx, id);
      await tx.update(products).set(input).where(eq(products.id, id));
      const after = await findProduct(tx, id);
      await writeAudit(tx, staff, {
        action: 'products.update',
        entity: 'products',
        entity_id: id,
        before,
        after,
      });
      return after;
    });
    return c.json(updated);
  });

  r.delete('/:id', requireAdmin(), async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    await c.var.deps.db.transaction(async (tx) => {
      const before = await findProduct(tx, id);
      if (before.device_count > 0) {
        throw conflict(
          'PRODUCT_IN_USE',
          `该型号已有 ${before.device_count} 台设备在用，不能删除；可以改为停用`,
          { device_count: before.device_count },
        );
      }
      await tx.delete(products).where(eq(products.id, id));
      await writeAudit(tx, staff, { action: 'products.delete', entity: 'products', entity_id: id, before });
    });
    return c.body(null, 204);
  });

  return r;
}
