/**
 * Helpers shared by the employee's routes: the merchant a staff call acts for (the token's merchant; the platform
 * admin, who has none, names one), a level that holds any of several features, and the staff Idempotency-Key.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Feature } from '../../../src/domain/levels';
import type { AppEnv, StaffAuth } from '../../context';
import { badRequest, forbidden, validationFailed } from '../../lib/errors';
import { IdempotencyKeySchema } from '../../services/orders';
import { requireStaff } from '../../auth/staff.middleware';

/** Signed-in staff whose level has at least one of `features` (403 otherwise; level 1 has them all). */
export function requireAnyFeature(...features: Feature[]): MiddlewareHandler<AppEnv> {
  const inner = requireStaff();
  return async (c, next) =>
    inner(c, async () => {
      const staff = c.var.staff!;
      if (staff.level !== 1 && !features.some((f) => staff.features.has(f))) {
        throw forbidden('没有权限访问此功能');
      }
      await next();
    });
}

/** The merchant this call acts for: the account's own; the admin must name one (`merchant_id`). */
export function actingMerchant(staff: StaffAuth, requested: number | undefined): number {
  if (staff.level === 1) {
    if (requested === undefined) {
      throw validationFailed({ merchant_id: '平台管理员请指定商户' }, '请指定商户');
    }
    return requested;
  }
  if (staff.merchant_id == null) throw forbidden('账号未关联商户');
  return staff.merchant_id;
}

/** The Idempotency-Key of a money-moving staff call: required, so a double tap or a retry can never count twice. */
export function requiredIdempotencyKey(c: Context<AppEnv>): string {
  const raw = c.req.header('Idempotency-Key');
  if (raw === undefined) {
    throw badRequest(
      '缺少 Idempotency-Key 请求头',
      { 'Idempotency-Key': '必填' },
      'IDEMPOTENCY_KEY_REQUIRED',
    );
  }
  const parsed = IdempotencyKeySchema.safeParse(raw);
  if (!parsed.success) {
    throw validationFailed(
      { 'Idempotency-Key': parsed.error.issues[0]?.message ?? '格式有误' },
      '请求头有误',
    );
  }
  return parsed.data;
}
