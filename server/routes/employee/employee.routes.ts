/**
 * `/backend/employee`: the employee's floor. The cash desk (a member by code, the merchant's packages, a cash
 * recharge, today's own cash recharges), the live device board, and the status of a remote start. Every call acts
 * for the token's merchant (the platform admin names one with `merchant_id`).
 */
import { and, asc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { z } from 'zod';
import { QueryIdSchema, type RechargePackage } from '../../../src/domain/api';
import { CashRechargeRequestSchema, MemberLookupQuerySchema } from '../../../src/domain/cash-recharge.schema';
import { BoardQuerySchema, type DeviceBoard } from '../../../src/domain/device-control.schema';
import { merchantWhere, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import { devices, venues } from '../../db/schema';
import { notFound } from '../../lib/errors';
import { parseJson, parseQuery } from '../../lib/validate';
import { deviceBoard } from '../device-control/staff-sessions';
import { startStatus } from '../device-control/remote-start';
import { assertMerchantExists, cashRecharge, memberAt, todaysCashRecharges } from './cash-recharge';
import { requiredIdempotencyKey } from '../../lib/idempotency-key';
import { actingMerchant, requireAnyFeature } from './staff-scope';
import { activePackages } from '../packages/package-rows';

const MerchantQuerySchema = z.object({ merchant_id: QueryIdSchema.optional() });
const OrderNoSchema = z.string().regex(/^[CR]\d{24}$/, '订单号格式有误');

export function employeeRoutes() {
  const r = new Hono<AppEnv>();
  const cashDesk = requireAnyFeature('employee.cashRecharge');

  r.get('/member', cashDesk, async (c) => {
    const staff = staffOf(c);
    const q = parseQuery(c, MemberLookupQuerySchema);
    const merchantId = actingMerchant(staff, q.merchant_id);
    if (staff.level === 1) await assertMerchantExists(c.var.deps.db, merchantId);
    return c.json(await memberAt(c.var.deps.db, q.code, merchantId));
  });

  r.get('/packages', cashDesk, async (c) => {
    const staff = staffOf(c);
    const merchantId = actingMerchant(staff, parseQuery(c, MerchantQuerySchema).merchant_id);
    const items: RechargePackage[] = await activePackages(c.var.deps.db, merchantId);
    return c.json({ items });
  });

  r.post('/cash-recharge', cashDesk, async (c) => {
    const staff = staffOf(c);
    const key = requiredIdempotencyKey(c);
    const body = await parseJson(c, CashRechargeRequestSchema);
    const merchantId = actingMerchant(staff, body.merchant_id);
    if (staff.level === 1) await assertMerchantExists(c.var.deps.db, merchantId);
    const res = await cashRecharge(c.var.deps, staff, { ...body, merchant_id: merchantId }, key);
    return c.json(res, res.replayed ? 200 : 201);
  });

  r.get('/cash-recharges', cashDesk, async (c) => {
    const staff = staffOf(c);
    const merchantId = actingMerchant(staff, parseQuery(c, MerchantQuerySchema).merchant_id);
    const { db, env, now } = c.var.deps;
    return c.json(await todaysCashRecharges(db, staff, merchantId, env.TZ, now()));
  });

  r.get(
    '/devices',
    requireAnyFeature('employee.deviceCharging', 'employee.remoteStart', 'merchant.devices'),
    async (c) => {
      const staff = staffOf(c);
      const q = parseQuery(c, BoardQuerySchema);
      const { db, now } = c.var.deps;
      const scope = and(
        merchantWhere(staff, venues.merchant_id),
        q.merchant_id !== undefined ? eq(venues.merchant_id, q.merchant_id) : undefined,
      );
      const venueList = await db
        .select({ id: venues.id, name: venues.name })
        .from(venues)
        .where(scope)
        .orderBy(asc(venues.id));
      if (q.venue_id !== undefined && !venueList.some((v) => v.id === q.venue_id)) {
        throw notFound('场地不存在');
      }
      const at = now();
      const items = await deviceBoard(
        db,
        and(
          merchantWhere(staff, devices.merchant_id),
          q.merchant_id !== undefined ? eq(devices.merchant_id, q.merchant_id) : undefined,
          q.venue_id !== undefined ? eq(devices.venue_id, q.venue_id) : undefined,
        ),
        at,
      );
      const body: DeviceBoard = { items, venues: venueList, now: at.toISOString() };
      return c.json(body);
    },
  );

  r.get('/starts/:order_no', requireAnyFeature('employee.remoteStart', 'merchant.devices'), async (c) => {
    const staff = staffOf(c);
    const parsed = OrderNoSchema.safeParse(c.req.param('order_no'));
    if (!parsed.success) throw notFound('订单不存在');
    return c.json(await startStatus(c.var.deps, staff, parsed.data));
  });

  return r;
}
