/**
 * `/backend/merchant/devices`: a merchant's devices (the admin: every merchant's, `?merchant_id=` to filter). List
 * with paging, search (name, serial) and filters (venue, model, status, online); add one or a batch with generated
 * serials; edit (name, model), move to another venue of the same merchant (its pay link and label change), disable
 * and enable. Scope comes from the token only; another merchant's ids answer 404. Every write leaves its audit rows
 * in its transaction.
 */
import { and, asc, count, eq, inArray } from 'drizzle-orm';
import { Hono } from 'hono';
import {
  DeviceCreateSchema,
  DeviceListQuerySchema,
  DeviceOptionsQuerySchema,
  DeviceUpdateSchema,
  type Device,
  type DeviceOptions,
} from '../../../src/domain/devices.schema';
import { assertOwnMerchant, merchantWhere, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv, StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { devices, products, venues } from '../../db/schema';
import { HttpError, conflict, notFound } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/list';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { writeAudit } from '../../services/audit';
import { deviceWhere, selectDevices, toDevice } from './devices.query';
import { assertSerialFree, nextSerials } from './devices.serials';

/** A ceiling on option lists (a merchant with more venues than this searches instead). */
const MAX_OPTIONS = 500;

interface Ctx {
  staff: StaffAuth;
  publicUrl: string;
  now: Date;
}

async function findDevice(db: Db | Tx, ctx: Ctx, id: number): Promise<Device> {
  const [row] = await selectDevices(db).where(eq(devices.id, id));
  if (!row) throw notFound('设备不存在');
  assertOwnMerchant(ctx.staff, row.merchant_id, '设备');
  return toDevice(row, ctx.publicUrl, ctx.now);
}

/** The venue a device goes to: it must exist and be the staff's (or, when given, that merchant's): else 404. */
async function venueFor(tx: Tx, staff: StaffAuth, venueId: number, merchantId?: number) {
  const [v] = await tx
    .select({ id: venues.id, merchant_id: venues.merchant_id })
    .from(venues)
    .where(eq(venues.id, venueId));
  const missing = () =>
    new HttpError(404, 'VENUE_NOT_FOUND', '场地不存在', { venue_id: '场地不存在或不属于本商户' });
  if (!v || (merchantId !== undefined && v.merchant_id !== merchantId)) throw missing();
  try {
    assertOwnMerchant(staff, v.merchant_id, '场地');
  } catch {
    throw missing();
  }
  return v;
}

/** The model a device uses: it must exist (404) and be in use (409 when retired, unless the device has it already). */
async function checkProduct(tx: Tx, productId: number, current?: number): Promise<void> {
  const [p] = await tx.select({ status: products.status }).from(products).where(eq(products.id, productId));
  if (!p) throw new HttpError(404, 'PRODUCT_NOT_FOUND', '设备型号不存在', { product_id: '设备型号不存在' });
  if (p.status !== 'active' && productId !== current) {
    throw conflict('PRODUCT_RETIRED', '该型号已停用，请选择在用的型号', { product_id: '该型号已停用' });
  }
}

const ctxOf = (c: { var: AppEnv['Variables'] }): Ctx => ({
  staff: staffOf(c),
  publicUrl: c.var.deps.env.PUBLIC_URL,
  now: c.var.deps.now(),
});

export function devicesRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireStaff('merchant.devices'));

  r.get('/', async (c) => {
    const ctx = ctxOf(c);
    const q = parseQuery(c, DeviceListQuerySchema);
    const where = deviceWhere(ctx.staff, q, ctx.now);
    const { db } = c.var.deps;
    // The page's ids come from the devices table alone, walked in the index's order (merchant, venue, id), and
    // only those rows are joined: a deep page no longer joins and sorts every device of the merchant.
    const pageIds = db
      .select({ id: devices.id })
      .from(devices)
      .where(where)
      .orderBy(asc(devices.venue_id), asc(devices.id))
      .limit(q.page_size)
      .offset(offsetOf(q));
    const [rows, [total]] = await Promise.all([
      selectDevices(db).where(inArray(devices.id, pageIds)).orderBy(asc(devices.venue_id), asc(devices.id)),
      db.select({ n: count() }).from(devices).where(where),
    ]);
    return c.json(
      pageOf(
        rows.map((row) => toDevice(row, ctx.publicUrl, ctx.now)),
        total?.n ?? 0,
        q,
      ),
    );
  });

  // What the device forms and filters choose from: the venues in scope and every model (retired ones marked), so a
  // merchant needs no access to the venue or model management screens to add a device.
  r.get('/options', async (c) => {
    const staff = staffOf(c);
    const q = parseQuery(c, DeviceOptionsQuerySchema);
    const { db } = c.var.deps;
    const [venueRows, productRows] = await Promise.all([
      db
        .select({ id: venues.id, name: venues.name, merchant_id: venues.merchant_id })
        .from(venues)
        .where(
          and(
            merchantWhere(staff, venues.merchant_id),
            q.merchant_id ? eq(venues.merchant_id, q.merchant_id) : undefined,
          ),
        )
        .orderBy(asc(venues.id))
        .limit(MAX_OPTIONS),
      db
        .select({ id: products.id, name: products.name, status: products.status })
        .from(products)
        .orderBy(asc(products.status), asc(products.id))
        .limit(MAX_OPTIONS),
    ]);
    return c.json({ venues: venueRows, products: productRows } satisfies DeviceOptions);
  });

  r.get('/:id', async (c) => c.json(await findDevice(c.var.deps.db, ctxOf(c), parseParam(c, 'id'))));

  r.post('/', async (c) => {
    const ctx = ctxOf(c);
    const input = await parseJson(c, DeviceCreateSchema);
    const created = await c.var.deps.db.transaction(async (tx) => {
      const venue = await venueFor(tx, ctx.staff, input.venue_id);
      await checkProduct(tx, input.product_id);
      if (input.serial) await assertSerialFree(tx, input.serial);
      const n = input.count ?? 1;
      const serials = input.serial ? [input.serial] : await nextSerials(tx, venue.merchant_id, n);
      const start = input.start ?? 1;
      const rows = await tx
        .insert(devices)
        .values(
          serials.map((serial, i) => ({
            merchant_id: venue.merchant_id,
            venue_id: venue.id,
            product_id: input.product_id,
            name: input.count === undefined ? input.name! : `${input.name_prefix}${start + i}`,
            serial,
          })),
        )
        .returning({ id: devices.id });
      const items: Device[] = [];
      for (const { id } of rows) {
        const device = await findDevice(tx, ctx, id);
        items.push(device);
        await writeAudit(tx, ctx.staff, {
          action: 'devices.create',
          entity: 'devices',
          entity_id: id,
          merchant_id: device.merchant_id,
          after: device,
          ...(input.count === undefined ? {} : { extra: { batch: input.count } }),
        });
      }
      return items;
    });
    return input.count === undefined ? c.json(created[0]!, 201) : c.json({ items: created }, 201);
  });

  r.put('/:id', async (c) => {
    const ctx = ctxOf(c);
    const id = parseParam(c, 'id');
    const input = await parseJson(c, DeviceUpdateSchema);
    const updated = await c.var.deps.db.transaction(async (tx) => {
      const before = await findDevice(tx, ctx, id);
      const moving = input.venue_id !== undefined && input.venue_id !== before.venue_id;
      if (moving) {
        await venueFor(tx, ctx.staff, input.venue_id!, before.merchant_id);
        if (before.session) {
          throw conflict('DEVICE_BUSY', '设备正在使用中，请在本次使用结束后再移动', {
            venue_id: '设备正在使用中',
          });
        }
      }
      if (input.product_id !== undefined) await checkProduct(tx, input.product_id, before.product_id);
      const status =
        input.status === 'disabled'
          ? ('disabled' as const)
          : input.status === 'enabled' && before.status === 'disabled'
            ? before.session
              ? ('running' as const)
              : ('idle' as const)
            : undefined;
      const patch = Object.fromEntries(
        Object.entries({
          name: input.name,
          product_id: input.product_id,
          venue_id: input.venue_id,
          status,
        }).filter(([, v]) => v !== undefined),
      );
      if (Object.keys(patch).length > 0) await tx.update(devices).set(patch).where(eq(devices.id, id));
      const after = await findDevice(tx, ctx, id);
      const action = moving
        ? 'devices.move'
        : status && status !== before.status
          ? status === 'disabled'
            ? 'devices.disable'
            : 'devices.enable'
          : 'devices.update';
      await writeAudit(tx, ctx.staff, {
        action,
        entity: 'devices',
        entity_id: id,
        merchant_id: before.merchant_id,
        before,
        after,
      });
      return after;
    });
    if (input.status !== undefined) {
      // The broker's credentials follow (dynamic security); if this fails the periodic reconciliation does it.
      await c.var.deps.devices?.gateway.deviceChanged?.(updated.serial).catch((err: unknown) => {
        console.error(`device ${updated.serial}: the broker was not told:`, (err as Error).message);
      });
    }
    return c.json(updated);
  });

  return r;
}
