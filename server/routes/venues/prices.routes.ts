/**
 * `/backend/merchant/venues/:id/prices`: the service prices of one venue (name, minutes, price, active, order).
 * The venue is checked against the signed-in staff first, so another merchant's venue or price answers 404. Orders
 * keep the amount and minutes they were paid at, so editing a price never changes a past order; a price that
 * orders refer to cannot be deleted (409), only deactivated (docs/decisions.md D16).
 */
import { and, eq, max } from 'drizzle-orm';
import { Hono } from 'hono';
import { PriceInputSchema, PriceUpdateSchema, ReorderSchema } from '../../../src/domain/venues.schema';
import { staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import type { Tx } from '../../db/client';
import { service_prices } from '../../db/schema';
import { applyOrder } from '../../lib/catalogue';
import { conflict } from '../../lib/errors';
import { pageOf } from '../../lib/list';
import { parseJson, parseParam } from '../../lib/validate';
import { writeAudit, type AuditEntry } from '../../services/audit';
import type { StaffAuth } from '../../context';
import { findPrice, findVenue, pricesOf } from './venue-rows';

/** Most prices one venue may have (the pay page lists them all). */
export const MAX_PRICES_PER_VENUE = 50;

const audit = (tx: Tx, staff: StaffAuth, merchantId: number, e: Omit<AuditEntry, 'entity'>) =>
  writeAudit(tx, staff, { ...e, entity: 'service_prices', merchant_id: merchantId });

export function pricesRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', async (c) => {
    const { db } = c.var.deps;
    const venue = await findVenue(db, staffOf(c), parseParam(c, 'id'));
    const items = await pricesOf(db, venue.id);
    return c.json(pageOf(items, items.length, { page: 1, page_size: MAX_PRICES_PER_VENUE }));
  });

  r.post('/', async (c) => {
    const staff = staffOf(c);
    const venueId = parseParam(c, 'id');
    const input = await parseJson(c, PriceInputSchema);
    const created = await c.var.deps.db.transaction(async (tx) => {
      const venue = await findVenue(tx, staff, venueId);
      if (venue.price_count >= MAX_PRICES_PER_VENUE) {
        throw conflict(
          'TOO_MANY_PRICES',
          `一个场地最多 ${MAX_PRICES_PER_VENUE} 个价格，请先停用或删除不用的价格`,
        );
      }
      const [last] = await tx
        .select({ sort: max(service_prices.sort) })
        .from(service_prices)
        .where(eq(service_prices.venue_id, venueId));
      const [row] = await tx
        .insert(service_prices)
        .values({ ...input, venue_id: venueId, sort: input.sort ?? (last?.sort ?? 0) + 1 })
        .returning({ id: service_prices.id });
      const price = await findPrice(tx, venueId, row!.id);
      await audit(tx, staff, venue.merchant_id, {
        action: 'service_prices.create',
        entity_id: price.id,
        after: price,
        extra: { venue_id: venueId },
      });
      return price;
    });
    return c.json(created, 201);
  });

  // Before `/:price_id`: the whole list in its new order, in one transaction.
  r.put('/order', async (c) => {
    const staff = staffOf(c);
    const venueId = parseParam(c, 'id');
    const { ids } = await parseJson(c, ReorderSchema);
    const items = await c.var.deps.db.transaction(async (tx) => {
      const venue = await findVenue(tx, staff, venueId);
      const before = await pricesOf(tx, venueId);
      await applyOrder(
        before.map((p) => p.id),
        ids,
        (id, sort) => tx.update(service_prices).set({ sort }).where(eq(service_prices.id, id)),
      );
      const after = await pricesOf(tx, venueId);
      await audit(tx, staff, venue.merchant_id, {
        action: 'service_prices.reorder',
        entity_id: null,
        before: before.map((p) => p.id),
        after: after.map((p) => p.id),
        extra: { venue_id: venueId },
      });
      return after;
    });
    return c.json(pageOf(items, items.length, { page: 1, page_size: MAX_PRICES_PER_VENUE }));
  });

  r.put('/:price_id', async (c) => {
    const staff = staffOf(c);
    const venueId = parseParam(c, 'id');
    const priceId = parseParam(c, 'price_id');
    const input = await parseJson(c, PriceUpdateSchema);
    const updated = await c.var.deps.db.transaction(async (tx) => {
      const venue = await findVenue(tx, staff, venueId);
      const before = await findPrice(tx, venueId, priceId);
      if (Object.keys(input).length === 0) return before;
      await tx.update(service_prices).set(input).where(eq(service_prices.id, priceId));
      const after = await findPrice(tx, venueId, priceId);
      await audit(tx, staff, venue.merchant_id, {
        action: 'service_prices.update',
        entity_id: priceId,
        before,
        after,
        extra: { venue_id: venueId },
      });
      return after;
    });
    return c.json(updated);
  });

  r.delete('/:price_id', async (c) => {
    const staff = staffOf(c);
    const venueId = parseParam(c, 'id');
    const priceId = parseParam(c, 'price_id');
    await c.var.deps.db.transaction(async (tx) => {
      const venue = await findVenue(tx, staff, venueId);
      // Locked first: an order being placed at this price holds a key-share lock on it, so the count below
      // sees every order that can ever refer to it.
      await tx
        .select({ id: service_prices.id })
        .from(service_prices)
        .where(and(eq(service_prices.id, priceId), eq(service_prices.venue_id, venueId)))
        .for('update');
      const before = await findPrice(tx, venueId, priceId);
      if (before.order_count > 0) {
        throw conflict(
          'PRICE_IN_USE',
          `该价格已有 ${before.order_count} 笔订单，不能删除；可以改为停用，用户将不再看到它`,
          { order_count: before.order_count },
        );
      }
      await tx
        .delete(service_prices)
        .where(and(eq(service_prices.id, priceId), eq(service_prices.venue_id, venueId)));
      await audit(tx, staff, venue.merchant_id, {
        action: 'service_prices.delete',
        entity_id: priceId,
        before,
        extra: { venue_id: venueId },
      });
    });
    return c.body(null, 204);
  });

  return r;
}
