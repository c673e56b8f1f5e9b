/**
 * Staff authorization. Owns the rule that who you are, your level, your merchant and your features come from the
 * bearer token alone: the client's X-UserLevel and X-MerchantID headers are display hints and are never read here.
 */
import { and, eq, gt, isNull, or, type Column, type SQL } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { FEATURES, type Feature } from '../../src/domain/levels';
import type { AppEnv, StaffAuth, StaffRole } from '../context';
import type { Db } from '../db/client';
import { accounts, auth_tokens, merchants, permissions } from '../db/schema';
import { forbidden, notFound, unauthorized } from '../lib/errors';
import { bearerOf, hashToken } from './tokens';

/** Features a level may open, from the stored matrix. Level 1 keeps every feature whatever the table says. */
export async function featuresOfLevel(db: Db, level: number): Promise<Set<string>> {
  if (level === 1) return new Set<string>(FEATURES);
  const rows = await db
    .select({ feature: permissions.feature })
    .from(permissions)
    .where(and(eq(permissions.level, level), eq(permissions.allowed, true)));
  return new Set(rows.map((r) => r.feature));
}

/**
 * Resolves a raw bearer token to the staff account, or undefined when unknown, expired, revoked, or the account or
 * its merchant is disabled.
 */
export async function resolveStaff(db: Db, token: string, now: Date): Promise<StaffAuth | undefined> {
  const [row] = await db
    .select({
      token_id: auth_tokens.id,
      account_id: accounts.id,
      level: accounts.level,
      role: accounts.role,
      merchant_id: accounts.merchant_id,
      name: accounts.name,
    })
    .from(auth_tokens)
    .innerJoin(accounts, eq(accounts.id, auth_tokens.account_id))
    .leftJoin(merchants, eq(merchants.id, accounts.merchant_id))
    .where(
      and(
        eq(auth_tokens.token_hash, hashToken(token)),
        isNull(auth_tokens.revoked_at),
        gt(auth_tokens.expires_at, now),
        eq(accounts.status, 'active'),
        // Staff of a disabled merchant lose access at once (level 1 has no merchant).
        or(isNull(accounts.merchant_id), eq(merchants.status, 'active')),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  return {
    account_id: row.account_id,
    level: row.level,
    role: row.role as StaffRole,
    merchant_id: row.merchant_id,
    name: row.name,
    features: await featuresOfLevel(db, row.level),
    token_id: row.token_id,
  };
}

/**
 * Requires a signed-in staff account (401 UNAUTHORIZED otherwise) and, when `feature` is given, that its level has
 * the feature in the permission matrix (403 FORBIDDEN otherwise). Sets `c.var.staff`.
 */
export function requireStaff(feature?: Feature): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { db, now } = c.var.deps;
    const token = bearerOf(c.req.header('authorization'));
    if (!token) throw unauthorized('请先登录');
    const staff = await resolveStaff(db, token, now());
    if (!staff) throw unauthorized('登录已失效，请重新登录');
    if (feature && staff.level !== 1 && !staff.features.has(feature)) throw forbidden('没有权限访问此功能');
    c.set('staff', staff);
    await next();
  };
}

/** Level 1 (platform administrator) only, whatever the matrix says. */
export function requireAdmin(): MiddlewareHandler<AppEnv> {
  const inner = requireStaff();
  return async (c, next) =>
    inner(c, async () => {
      if (c.var.staff?.level !== 1) throw forbidden('仅平台管理员可以执行此操作');
      await next();
    });
}

/** The staff set by requireStaff; throws 401 when a route forgot the middleware (never silently "no scope"). */
export function staffOf(c: { var: AppEnv['Variables'] }): StaffAuth {
  const staff = c.var.staff;
  if (!staff) throw unauthorized();
  return staff;
}

/**
 * The merchant filter for merchant-owned queries: null means all merchants (level 1), otherwise the account's own
 * merchant. Every merchant-owned list and lookup goes through this or `merchantWhere`.
 */
export function merchantScope(staff: StaffAuth): number | null {
  if (staff.level === 1) return null;
  if (staff.merchant_id == null) throw forbidden('账号未关联商户');
  return staff.merchant_id;
}

/** `column = <own merchant>` for scoped staff, undefined (no filter) for level 1; use inside `and(...)`. */
export function merchantWhere(staff: StaffAuth, column: Column): SQL | undefined {
  const scope = merchantScope(staff);
  return scope === null ? undefined : eq(column, scope);
}

/** Throws 404 when a row's merchant is not the staff's own (another merchant's id answers 404, docs/decisions.md D4). */
export function assertOwnMerchant(
  staff: StaffAuth,
  merchantId: number | null | undefined,
  what = '资源',
): void {
  const scope = merchantScope(staff);
  if (scope !== null && merchantId !== scope) throw notFound(`${what}不存在`);
}
