/**
 * Reading venues and their service prices as the staff API answers them (one mapper each, so every endpoint
 * answers the same shape), scoped to the signed-in staff: another merchant's venue or price answers 404.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Venue, VenuePrice } from '../../../src/domain/venues.schema';
import { assertOwnMerchant } from '../../auth/staff.middleware';
import type { StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { merchants, service_prices, venues } from '../../db/schema';
import { notFound } from '../../lib/errors';

// Counts in the same query (table-qualified: drizzle leaves columns bare in a subquery).
const priceCount = sql<number>`(select count(*) from "service_prices" where "service_prices"."venue_id" = "venues"."id")`;
const activePriceCount = sql<number>`(select count(*) from "service_prices" where "service_prices"."venue_id" = "venues"."id" and "service_prices"."active")`;
const deviceCount = sql<number>`(select count(*) from "devices" where "devices"."venue_id" = "venues"."id")`;
const orderCount = sql<number>`(select count(*) from "orders" where "orders"."price_id" = "service_prices"."id")`;

/** The columns of a venue answer; use with `.from(venues).innerJoin(merchants, ...)`. */
export const venueColumns = {
  v: venues,
  merchant_name: merchants.name,
  price_count: priceCount.mapWith(Number),
  active_price_count: activePriceCount.mapWith(Number),
  device_count: deviceCount.mapWith(Number),
};

type VenueRow = {
  v: typeof venues.$inferSelect;
  merchant_name: string;
  price_count: number;
  active_price_count: number;
  device_count: number;
};

/** The answer shape (fixed: fields may be added, never renamed). */
export function toVenue(r: VenueRow): Venue {
  return {
    id: r.v.id,
    name: r.v.name,
    address: r.v.address,
    merchant_id: r.v.merchant_id,
    merchant_name: r.merchant_name,
    price_count: r.price_count,
    active_price_count: r.active_price_count,
    device_count: r.device_count,
    created_at: r.v.created_at.toISOString(),
  };
}

/** One venue of the staff's scope, or 404. */
export async function findVenue(db: Db | Tx, staff: StaffAuth, id: number): Promise<Venue> {
  const [row] = await db
    .select(venueColumns)
    .from(venues)
    .innerJoin(merchants, eq(merchants.id, venues.merchant_id))
    .where(eq(venues.id, id));
  if (!row) throw notFound('场地不存在');
  assertOwnMerchant(staff, row.v.merchant_id, '场地');
  return toVenue(row);
}

type PriceRow = { p: typeof service_prices.$inferSelect; order_count: number };
const priceColumns = { p: service_prices, order_count: orderCount.mapWith(Number) };

/** The answer shape (fixed: fields may be added, never renamed). */
export function toPrice(r: PriceRow): VenuePrice {
  return {
    id: r.p.id,
    venue_id: r.p.venue_id,
    name: r.p.name,
    minutes: r.p.minutes,
    price_fen: r.p.price_fen,
    active: r.p.active,
    sort: r.p.sort,
    order_count: r.order_count,
    created_at: r.p.created_at.toISOString(),
  };
}

/** A venue's prices in the order end users see them (the order of `GET /backend/api/venue-service-prices`). */
export async function pricesOf(db: Db | Tx, venueId: number): Promise<VenuePrice[]> {
  const rows = await db
    .select(priceColumns)
    .from(service_prices)
    .where(eq(service_prices.venue_id, venueId))
    .orderBy(asc(service_prices.sort), asc(service_prices.price_fen), asc(service_prices.id));
  return rows.map(toPrice);
}

/** One price of the venue (whose scope the caller has checked), or 404. */
export async function findPrice(db: Db | Tx, venueId: number, priceId: number): Promise<VenuePrice> {
  const [row] = await db
    .select(priceColumns)
    .from(service_prices)
    .where(and(eq(service_prices.id, priceId), eq(service_prices.venue_id, venueId)));
  if (!row) throw notFound('价格不存在');
  return toPrice(row);
}
