/**
 * `GET /backend/user/profile`: the signed-in member and their wallets (with `?merchant_id=`, a zero wallet at that
 * merchant when there is none yet, so the pay page shows 余额 ¥0.00 before the first recharge).
 */
import { Hono } from 'hono';
import { and, eq, asc } from 'drizzle-orm';
import { z } from 'zod';
import { QueryIdSchema, type MemberWallet, type UserProfile } from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { members, merchants, wallets } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import { parseQuery } from '../../lib/validate';
import { memberOf, requireMember } from '../../member/member.middleware';
import { spendable, walletKind } from '../../services/ledger';

const OptionalMerchantQuerySchema = z.object({ merchant_id: QueryIdSchema.optional() });

export function profileRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

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
        cash_principal_fen: wallets.cash_principal_fen,
        bonus_fen: wallets.bonus_fen,
      })
      .from(wallets)
      .innerJoin(merchants, eq(merchants.id, wallets.merchant_id))
      .where(and(walletKind('member'), eq(wallets.member_id, memberId)))
      .orderBy(asc(wallets.id));
    // The member sees one principal, whatever its source (docs/decisions.md D18).
    const list: MemberWallet[] = rows.map((w) => ({
      merchant_id: w.merchant_id,
      merchant_name: w.merchant_name,
      principal_fen: w.principal_fen + w.cash_principal_fen,
      bonus_fen: w.bonus_fen,
      balance_fen: spendable(w),
    }));
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

  return r;
}
