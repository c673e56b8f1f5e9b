/**
 * The end user's money: pay for a device, recharge, packages, wallets and the two histories
 * (`/backend/user/...`, member cookie only). The flows themselves live in services/orders.ts; this file validates,
 * scopes everything to the signed-in member and shapes the answers of docs/decisions.md D6.
 */
import { Hono } from 'hono';
import { and, count, desc, eq, inArray, asc } from 'drizzle-orm';
import { z } from 'zod';
import {
  PayRequestSchema,
  QueryIdSchema,
  RechargeRequestSchema,
  type ConsumptionHistoryItem,
  type MemberWallet,
  type RechargeHistoryItem,
  type RechargePackage,
  type UserProfile,
} from '../../src/domain/api';
import type { AppDeps, AppEnv } from '../context';
import { devices, members, merchants, orders, packages, venues, wallets } from '../db/schema';
import { HttpError } from '../lib/errors';
import { parseJson, parseQuery } from '../lib/validate';
import { offsetOf, pageOf, pageQuery } from '../lib/list';
import { memberOf, requireMember } from '../member/member.middleware';
import { idempotencyKey } from '../lib/idempotency-key';
import { payForDevice, rechargePackage, type PaymentDeps } from '../services/orders';

const PayBodySchema = PayRequestSchema.extend({ return_path: z.string().max(512).optional() });
const RechargeBodySchema = RechargeRequestSchema.extend({ return_path: z.string().max(512).optional() });
const MerchantQuerySchema = z.object({ merchant_id: QueryIdSchema });
const OptionalMerchantQuerySchema = z.object({
  merchant_id: QueryIdSchema.optional(),
});

/** Orders that took money: what the histories list (a pending or closed order never charged anyone). */
const BOOKED = ['paid', 'started', 'completed', 'refunded', 'failed'] as const;

/** The payment view of AppDeps (the WeChat clients and the devices service are optional parts of it). */
export function paymentDeps(deps: AppDeps): PaymentDeps {
  const d = deps as AppDeps & { wechat?: PaymentDeps['wechat']; devices?: PaymentDeps['devices'] };
  return { db: d.db, now: d.now, wechat: d.wechat, devices: d.devices };
}

export function payRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.post('/pay', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const key = idempotencyKey(c);
    const body = await parseJson(c, PayBodySchema);
    const { return_path, ...req } = body;
    const res = await payForDevice(paymentDeps(c.var.deps), memberId, req, {
      idempotencyKey: key,
      returnPath: return_path,
    });
    return c.json(res, 201);
  });

  r.post('/recharge', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const key = idempotencyKey(c);
    const body = await parseJson(c, RechargeBodySchema);
    const { return_path, ...req } = body;
    const res = await rechargePackage(paymentDeps(c.var.deps), memberId, req, {
      idempotencyKey: key,
      returnPath: return_path,
    });
    return c.json(res, 201);
  });

  r.get('/packages', requireMember(), async (c) => {
    memberOf(c);
    const { merchant_id } = parseQuery(c, MerchantQuerySchema);
    const items: RechargePackage[] = await c.var.deps.db
      .select({
        id: packages.id,
        name: packages.name,
        pay_fen: packages.pay_fen,
        bonus_fen: packages.bonus_fen,
      })
      .from(packages)
      .where(and(eq(packages.merchant_id, merchant_id), eq(packages.active, true)))
      .orderBy(asc(packages.sort), asc(packages.pay_fen), asc(packages.id));
    return c.json({ items });
  });

  r.get('/profile', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const { merchant_id } = parseQuery(c, OptionalMerchantQuerySchema);
    const { db } = c.var.deps;
    const [member] = await db
      .select({
        id: members.id,
        nickname: members.nickname,
        avatar_url: members.avatar_url,
        code: members.code,
      })
      .from(members)
      .where(eq(members.id, memberId));
    if (!member) throw new HttpError(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权');
    const rows = await db
      .select({
        merchant_id: merchants.id,
        merchant_name: merchants.name,
        principal_fen: wallets.principal_fen,
        bonus_fen: wallets.bonus_fen,
      })
      .from(wallets)
      .innerJoin(merchants, eq(merchants.id, wallets.merchant_id))
      .where(and(eq(wallets.kind, 'member'), eq(wallets.member_id, memberId)))
      .orderBy(asc(wallets.id));
    const list: MemberWallet[] = rows.map((w) => ({ ...w, balance_fen: w.principal_fen + w.bonus_fen }));
    if (merchant_id !== undefined && !list.some((w) => w.merchant_id === merchant_id)) {
      // The pay page shows 余额 ¥0.00 at this merchant before the first recharge.
      const [m] = await db
        .select({ name: merchants.name })
        .from(merchants)
        .where(eq(merchants.id, merchant_id));
      if (m)
        list.push({ merchant_id, merchant_name: m.name, balance_fen: 0, principal_fen: 0, bonus_fen: 0 });
    }
    const body: UserProfile = { member, wallets: list };
    return c.json(body);
  });

  r.get('/recharge-history', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const q = pageQuery(c);
    const { db } = c.var.deps;
    const where = and(
      eq(orders.member_id, memberId),
      eq(orders.kind, 'recharge'),
      inArray(orders.status, BOOKED),
    );
    const [total] = await db.select({ n: count() }).from(orders).where(where);
    const rows = await db
      .select({
        order_no: orders.order_no,
        merchant_name: merchants.name,
        amount_fen: orders.amount_fen,
        bonus_fen: orders.bonus_fen,
        method: orders.method,
        status: orders.status,
        created_at: orders.created_at,
      })
      .from(orders)
      .innerJoin(merchants, eq(merchants.id, orders.merchant_id))
      .where(where)
      .orderBy(desc(orders.created_at), desc(orders.id))
      .limit(q.page_size)
      .offset(offsetOf(q));
    const items: RechargeHistoryItem[] = rows.map((o) => ({
      ...o,
      method: o.method === 'cash' ? 'cash' : 'wechat',
      created_at: o.created_at.toISOString(),
    }));
    return c.json(pageOf(items, total?.n ?? 0, q));
  });

  r.get('/consumption-history', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const q = pageQuery(c);
    const { db } = c.var.deps;
    const where = and(
      eq(orders.member_id, memberId),
      eq(orders.kind, 'consume'),
      inArray(orders.status, BOOKED),
    );
    const [total] = await db.select({ n: count() }).from(orders).where(where);
    const rows = await db
      .select({
        order_no: orders.order_no,
        merchant_name: merchants.name,
        device_name: devices.name,
        venue_name: venues.name,
        minutes: orders.minutes,
        amount_fen: orders.amount_fen,
        refunded_fen: orders.refunded_fen,
        method: orders.method,
        status: orders.status,
        created_at: orders.created_at,
      })
      .from(orders)
      .innerJoin(merchants, eq(merchants.id, orders.merchant_id))
      .leftJoin(devices, eq(devices.id, orders.device_id))
      .leftJoin(venues, eq(venues.id, orders.venue_id))
      .where(where)
      .orderBy(desc(orders.created_at), desc(orders.id))
      .limit(q.page_size)
      .offset(offsetOf(q));
    const items: ConsumptionHistoryItem[] = rows.map((o) => ({
      ...o,
      device_name: o.device_name ?? '',
      venue_name: o.venue_name ?? '',
      minutes: o.minutes ?? 0,
      method: o.method === 'wechat' ? 'wechat' : 'wallet',
      created_at: o.created_at.toISOString(),
    }));
    return c.json(pageOf(items, total?.n ?? 0, q));
  });

  return r;
}
