/**
 * `GET /backend/user/packages?merchant_id=`: the active recharge packages of a merchant, in their order, as the
 * member's recharge sheet shows them.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { QueryIdSchema } from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { parseQuery } from '../../lib/validate';
import { memberOf, requireMember } from '../../member/member.middleware';
import { activePackages } from './package-rows';

const MerchantQuerySchema = z.object({ merchant_id: QueryIdSchema });

export function userPackagesRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.get('/packages', requireMember(), async (c) => {
    memberOf(c);
    const { merchant_id } = parseQuery(c, MerchantQuerySchema);
    const items = await activePackages(c.var.deps.db, merchant_id);
    return c.json({ items });
  });

  return r;
}
