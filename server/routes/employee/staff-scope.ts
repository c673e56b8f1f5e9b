/**
 * Helpers shared by the employee's routes: the merchant a staff call acts for (the token's merchant; the platform
 * admin, who has none, names one), and a level that holds any of several features (the staff
 * Idempotency-Key is `requiredIdempotencyKey` in lib/idempotency-key.ts).
 */
import type { MiddlewareHandler } from 'hono';
import type { Feature } from '../../../src/domain/levels';
import type { AppEnv, StaffAuth } from '../../context';
import { forbidden, validationFailed } from '../../lib/errors';
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
