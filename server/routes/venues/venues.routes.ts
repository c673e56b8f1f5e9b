/**
 * `/backend/merchant/venues`: a merchant's venues (the admin sees every merchant's, with `?merchant_id=`), with
 * paging and search; add (the admin names the merchant) and edit. The venue's service prices live under
 * `/:id/prices` (prices.routes.ts). Every write leaves an audit row in its transaction.
 */
import { and, asc, count, eq, ilike, or, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import { VenueInputSchema, VenueListQuerySchema, VenueUpdateSchema } from '../../../src/domain/venues.schema';
import { merchantWhere, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import { merchants, venues } from '../../db/schema';
import { merchantForNewRow } from '../../lib/catalogue';
import { offsetOf, pageOf } from '../../lib/list';
import { likePattern } from '../../lib/search';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { updateAudited, writeAudit } from '../../services/audit';
import { pricesRoutes } from './prices.routes';
import { findVenue, toVenue, venueColumns } from './venue-rows';

export function venuesRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireStaff('merchant.venues'));

  r.get('/', async (c) => {
    const staff = staffOf(c);
    const { db } = c.var.deps;
    const q = parseQuery(c, VenueListQuerySchema);
    const where: (SQL | undefined)[] = [
      merchantWhere(staff, venues.merchant_id),
      q.merchant_id ? eq(venues.merchant_id, q.merchant_id) : undefined,
      q.q ? or(ilike(venues.name, likePattern(q.q)), ilike(venues.address, likePattern(q.q))) : undefined,
    ];
    const [rows, [total]] = await Promise.all([
      db
        .select(venueColumns)
        .from(venues)
        .innerJoin(merchants, eq(merchants.id, venues.merchant_id))
        .where(and(...where))
        .orderBy(asc(venues.merchant_id), asc(venues.id))
        .limit(q.page_size)
        .offset(offsetOf(q)),
      db
        .select({ n: count() })
        .from(venues)
        .where(and(...where)),
    ]);
    return c.json(pageOf(rows.map(toVenue), total?.n ?? 0, q));
  });

  r.get('/:id', async (c) => c.json(await findVenue(c.var.deps.db, staffOf(c), parseParam(c, 'id'))));

  r.post('/', async (c) => {
    const staff = staffOf(c);
    const { merchant_id, ...input } = await parseJson(c, VenueInputSchema);
    const created = await c.var.deps.db.transaction(async (tx) => {
      const owner = await merchantForNewRow(tx, staff, merchant_id);
      const [row] = await tx
        .insert(venues)
        .values({ ...input, merchant_id: owner })
        .returning({ id: venues.id });
      const venue = await findVenue(tx, staff, row!.id);
      await writeAudit(tx, staff, {
        action: 'venues.create',
        entity: 'venues',
        entity_id: venue.id,
        merchant_id: owner,
        after: venue,
      });
      return venue;
    });
    return c.json(created, 201);
  });

  r.put('/:id', async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    const input = await parseJson(c, VenueUpdateSchema);
    const updated = await c.var.deps.db.transaction((tx) =>
      updateAudited(tx, staff, {
        entity: 'venues',
        id,
        input,
        find: findVenue,
        update: (t, rowId, set) => t.update(venues).set(set).where(eq(venues.id, rowId)),
      }),
    );
    return c.json(updated);
  });

  r.route('/:id/prices', pricesRoutes());
  return r;
}
