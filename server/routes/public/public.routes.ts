/**
 * Public device pages, no sign-in (docs/decisions.md D6, shapes fixed for outside clients): the device behind a QR code,
 * its venue, and the venue's active service prices. Mounted at `/backend/api`.
 */
import { and, asc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { z } from 'zod';
import {
  QueryIdSchema,
  type PublicDevice,
  type PublicVenue,
  type ServicePrice,
} from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { devices, merchants, products, service_prices, venues } from '../../db/schema';
import { notFound } from '../../lib/errors';
import { parseParam, parseQuery } from '../../lib/validate';
import { isOnline } from '../../services/devices/sessions';

const PricesQuery = z.object({ venue_id: QueryIdSchema });

/** What the pay page shows: an operator's status, or `offline` when the device stopped reporting. */
export function publicStatus(status: PublicDevice['status'], online: boolean): PublicDevice['status'] {
  if (status === 'disabled' || status === 'fault') return status;
  return online ? status : 'offline';
}

export function publicRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/devices/:id', async (c) => {
    const id = parseParam(c, 'id');
    const { db, now } = c.var.deps;
    const [d] = await db
      .select({
        id: devices.id,
        name: devices.name,
        serial: devices.serial,
        status: devices.status,
        last_heartbeat_at: devices.last_heartbeat_at,
        venue_id: devices.venue_id,
        merchant_id: devices.merchant_id,
        product_id: products.id,
        product_name: products.name,
      })
      .from(devices)
      .innerJoin(products, eq(products.id, devices.product_id))
      .where(eq(devices.id, id));
    if (!d) throw notFound('设备不存在');
    const online = isOnline(d.last_heartbeat_at, d.status, now());
    const body: PublicDevice = {
      id: d.id,
      name: d.name,
      serial: d.serial,
      status: publicStatus(d.status, online),
      online,
      venue_id: d.venue_id,
      merchant_id: d.merchant_id,
      product: { id: d.product_id, name: d.product_name },
    };
    return c.json(body);
  });

  app.get('/venues/:id', async (c) => {
    const id = parseParam(c, 'id');
    const [v] = await c.var.deps.db
      .select({
        id: venues.id,
        name: venues.name,
        address: venues.address,
        merchant_id: merchants.id,
        merchant_name: merchants.name,
        merchant_status: merchants.status,
      })
      .from(venues)
      .innerJoin(merchants, eq(merchants.id, venues.merchant_id))
      .where(eq(venues.id, id));
    if (!v) throw notFound('场地不存在');
    const body: PublicVenue = {
      id: v.id,
      name: v.name,
      address: v.address,
      merchant: { id: v.merchant_id, name: v.merchant_name, status: v.merchant_status },
    };
    return c.json(body);
  });

  app.get('/venue-service-prices', async (c) => {
    const { venue_id } = parseQuery(c, PricesQuery);
    const { db } = c.var.deps;
    const [v] = await db.select({ id: venues.id }).from(venues).where(eq(venues.id, venue_id));
    if (!v) throw notFound('场地不存在');
    const items: ServicePrice[] = await db
      .select({
        id: service_prices.id,
        name: service_prices.name,
        minutes: service_prices.minutes,
        price_fen: service_prices.price_fen,
      })
      .from(service_prices)
      .where(and(eq(service_prices.venue_id, venue_id), eq(service_prices.active, true)))
      .orderBy(asc(service_prices.sort), asc(service_prices.price_fen), asc(service_prices.id));
    return c.json({ items });
  });

  return app;
}
