/**
 * `GET /backend/user/packages?merchant_id=`: the active recharge packages of a merchant, in their order, as the
 * member's recharge sheet shows them.
 */
import { Hono } from 'hono';
import { and, eq, asc } from 'drizzle-orm';
import { z } from 'zod';
import { QueryIdSchema, type RechargePackage } from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { packages } from '../../db/schema';
import { parseQuery } from '../../lib/validate';
import { memberOf, requireMember } from '../../member/member.middleware';

const MerchantQuerySchema = z.object({ merchant_id: QueryIdSchema });

export function userPackagesRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

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

  return r;
}
