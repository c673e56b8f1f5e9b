/** The `Idempotency-Key` request header of money-moving calls: absent, or visible ASCII up to 100 characters. */
import type { Context } from 'hono';
import { IdempotencyKeySchema } from '../services/orders';
import { badRequest, validationFailed } from './errors';

/** The header's value, undefined when absent; 400 VALIDATION_FAILED when malformed. */
export function idempotencyKey(c: Context): string | undefined {
  const raw = c.req.header('Idempotency-Key');
  if (raw === undefined) return undefined;
  const parsed = IdempotencyKeySchema.safeParse(raw);
  if (!parsed.success) {
    throw validationFailed(
      { 'Idempotency-Key': parsed.error.issues[0]?.message ?? '格式有误' },
      '请求头有误',
    );
  }
  return parsed.data;
}

/** The Idempotency-Key of a money-moving staff call: required, so a double tap or a retry can never count twice. */
export function requiredIdempotencyKey(c: Context): string {
  const key = idempotencyKey(c);
  if (key === undefined) {
    throw badRequest(
      '缺少 Idempotency-Key 请求头',
      { 'Idempotency-Key': '必填' },
      'IDEMPOTENCY_KEY_REQUIRED',
    );
  }
  return key;
}
